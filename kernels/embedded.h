/* Kernel sources compiled into the binary (tools/embed.py). BENCHTOP_KERNEL_DIR overrides
 * them with files on disk, so a user can edit a kernel and re-run without rebuilding. */
#ifndef BENCHTOP_EMBEDDED_H
#define BENCHTOP_EMBEDDED_H

typedef struct EmbeddedFile {
  const char *name;
  int length;
  const char *data;
} EmbeddedFile;

extern const EmbeddedFile Embedded_files[];
extern const int Embedded_count;

#endif
