/* Whether this build has GPU support. A viewer build (no CUDA toolkit at configure time, or
 * meson -Dgpu=disabled) links no CUDA library: it opens, shows, diffs and exports sessions and
 * lists variants and shapes; everything that needs CUDA says so in this one line. */
#ifndef BENCHTOP_GPU_BUILD_H
#define BENCHTOP_GPU_BUILD_H

#ifndef BENCHTOP_GPU
#error "BENCHTOP_GPU (0 or 1) comes from meson.build"
#endif

#define GPU_BUILD_MISSING                                                                   \
  "a viewer build (built without the CUDA toolkit): running kernels needs a GPU build"

#endif
