/* The source revision the binary was built from (git describe, "-dirty" for uncommitted
 * changes), regenerated at every build. A build may define BENCHTOP_REVISION itself (the fuzz
 * target compiles the loader alone). */
#ifndef BENCHTOP_REVISION_H
#define BENCHTOP_REVISION_H

extern const char Benchtop_revision[];
#ifndef BENCHTOP_REVISION
#define BENCHTOP_REVISION Benchtop_revision
#endif

#endif
