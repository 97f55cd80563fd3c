#include "kernels/reference.h"

/* Must match REF_ROWS and REF_THREADS in reference.cu. */
enum { REFERENCE_ROWS = 16, REFERENCE_THREADS = 256 };

const char *const Reference_source = REFERENCE_SOURCE;
const char *const Reference_entry = REFERENCE_ENTRY;

void Reference_dims(const Shape *s, LaunchDims *out) {
  out->grid[0] = (unsigned)((s->S + REFERENCE_ROWS - 1) / REFERENCE_ROWS);
  out->grid[1] = (unsigned)(s->B * s->H);
  out->grid[2] = 1;
  out->block[0] = REFERENCE_THREADS;
  out->block[1] = 1;
  out->block[2] = 1;
  out->smem = 0;
  out->persistent = false;
}
