/* `benchtop worker`: the process that owns the GPU (see bench/worker/worker.c). */
#ifndef BENCHTOP_WORKER_H
#define BENCHTOP_WORKER_H

int Worker_main(void);

#endif
