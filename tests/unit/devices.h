/* Device properties of real cards as cudaGetDeviceProperties reports them (multiProcessorCount,
 * l2CacheSize, sharedMemPerBlockOptin), for tests of launch geometry and the engine's
 * heuristics without a GPU. L4 and A100 from NVIDIA's data sheets and the CUDA programming
 * guide's per-architecture limits; H200 as recorded in sessions/examples/. */
#ifndef BENCHTOP_TEST_DEVICES_H
#define BENCHTOP_TEST_DEVICES_H

#include "kernels/device_props.h"

#define TEST_MIB ((int64_t)1 << 20)
static const DeviceProps Test_L4 = {.cc = 89, .sm_count = 58, .l2_bytes = 48 * TEST_MIB,
                                    .smem_optin = 99 * 1024};
static const DeviceProps Test_A100 = {.cc = 80, .sm_count = 108, .l2_bytes = 40 * TEST_MIB,
                                      .smem_optin = 163 * 1024};
static const DeviceProps Test_H100 = {.cc = 90, .sm_count = 132, .l2_bytes = 50 * TEST_MIB,
                                      .smem_optin = 227 * 1024};
static const DeviceProps Test_H200 = {.cc = 90, .sm_count = 132, .l2_bytes = 60 * TEST_MIB,
                                      .smem_optin = 227 * 1024};

#endif
