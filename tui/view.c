/* Putting a view up. Reads nothing of the table of views, so that every view can call it. */
#include "tui/tui.h"

void View_show(App *a, const View *v) {
  switch (v->layer) {
  case VIEW_PANEL:
    if (a->focus == v) return;
    a->focus = v;
    a->dirty |= DIRTY_VARIANTS | DIRTY_SHAPES | DIRTY_RESULTS | DIRTY_KEYBAR;
    return;
  case VIEW_SCREEN:
    a->screen = v;
    a->dirty = DIRTY_ALL;
    return;
  case VIEW_OVERLAY:
    a->overlay = v;
    a->dirty |= DIRTY_OVERLAY;
    return;
  }
}
