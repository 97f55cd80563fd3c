#include "bench/l2persist.h"

#include <string.h>

bool L2Persist_parse(const char *word, L2PersistWhich *out) {
  static const char *const words[] = {"off", "q", "kv", "qkv"};
  if (!word[0]) {
    *out = L2P_OFF;
    return true;
  }
  for (int i = 0; i < 4; i++)
    if (strcmp(word, words[i]) == 0) {
      *out = (L2PersistWhich)i;
      return true;
    }
  return false;
}

bool L2Persist_on(const RunOptions *o) {
  L2PersistWhich w;
  return L2Persist_parse(o->l2_persist, &w) && w != L2P_OFF;
}
