/* `benchtop worker` in a viewer build (no CUDA): answers as a worker on a machine without a GPU
 * does, so `run`, `replay` and the TUI say in one line what is missing and exit 3. It then
 * waits for the parent's quit (or the pipe's end) as any worker does: exiting at once would
 * leave the parent writing into a closed pipe. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench/worker/worker.h"
#include "common/gpu_build.h"
#include "common/util.h"

int Worker_main(void) {
  cJSON *m = cJSON_CreateObject();
  cJSON_AddStringToObject(m, "type", "nogpu");
  cJSON_AddStringToObject(m, "message", GPU_BUILD_MISSING);
  char *text = cJSON_PrintUnformatted(m);
  printf("%s\n", text);
  fflush(stdout);
  cJSON_free(text);
  cJSON_Delete(m);
  char *line = NULL;
  size_t cap = 0;
  while (getline(&line, &cap, stdin) > 0) {
    cJSON *req = cJSON_Parse(line);
    const cJSON *op = cJSON_GetObjectItemCaseSensitive(req, "op");
    bool quit = cJSON_IsString(op) && strcmp(op->valuestring, "quit") == 0;
    cJSON_Delete(req);
    if (quit) break;
  }
  free(line);
  return BT_EXIT_NO_GPU;
}
