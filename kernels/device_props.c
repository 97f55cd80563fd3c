#include "kernels/device_props.h"

unsigned DeviceProps_persistentBlocks(const DeviceProps *d, unsigned long long grid_blocks) {
  unsigned long long sms = d->sm_count > 0 ? (unsigned long long)d->sm_count : 1u;
  return (unsigned)(grid_blocks < sms ? grid_blocks : sms);
}

size_t DeviceProps_flushBytes(const DeviceProps *d) {
  return d->l2_bytes > 0 ? (size_t)d->l2_bytes * 2 : 0;
}

unsigned DeviceProps_flushBlocks(const DeviceProps *d) {
  return d->sm_count > 0 ? (unsigned)d->sm_count * 4 : 4u;
}
