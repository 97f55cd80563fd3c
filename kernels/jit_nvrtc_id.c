/* Which NVRTC this process loaded, to the build: nvrtcVersion says 13.0 for every 13.0 update,
 * whose code (and so a build's registers) may differ; the library's GNU build ID does not. */
#include <link.h>
#include <stdio.h>
#include <string.h>

#include <nvrtc.h>

#include "kernels/jit.h"

typedef struct {
  char hex[17]; /* the first 8 bytes of the build ID, "" when not found */
} NvrtcId;

/* NT_GNU_BUILD_ID of the loaded libnvrtc, read from its PT_NOTE segments in memory. */
static int Nvrtc_visit(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  NvrtcId *id = data;
  if (!info->dlpi_name || !strstr(info->dlpi_name, "libnvrtc.so")) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_NOTE) continue;
    const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
    const unsigned char *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
      const unsigned char *name = p + sizeof *nh;
      const unsigned char *desc = name + ((nh->n_namesz + 3u) & ~3u);
      if (desc + nh->n_descsz > end) break;
      if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
          nh->n_descsz >= 8) {
        for (int b = 0; b < 8; b++) snprintf(id->hex + 2 * b, 3, "%02x", desc[b]);
        return 1;
      }
      p = desc + ((nh->n_descsz + 3u) & ~3u);
    }
  }
  return 0;
}

void Jit_nvrtcIdentity(char *buf, size_t size) {
  int major = -1, minor = -1;
  Jit_nvrtcVersion(&major, &minor);
  NvrtcId id = {.hex = ""};
  dl_iterate_phdr(Nvrtc_visit, &id);
  snprintf(buf, size, "nvrtc-%d.%d%s%s", major, minor, id.hex[0] ? "-" : "", id.hex);
}
