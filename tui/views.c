/* The table of views: one line each (see tui/view.h for adding one). The order is the help's,
 * and the panels' places on the main screen. Nothing else lives here, so that a test build can
 * link a table of its own in place of this one (tests/tui/add_view.py). */
#include "tui/view.h"

#define VIEW_LIST(X) \
  X(View_main) \
  X(View_variants) \
  X(View_knobs) \
  X(View_shapes) \
  X(View_results) \
  X(View_columns) \
  X(View_compare) \
  X(View_chart) \
  X(View_detail) \
  X(View_picker) \
  X(View_runopts) \
  X(View_prompt) \
  X(View_confirm) \
  X(View_help) \
  /* end of the views */

#define VIEW_DECLARE(v) extern const View v;
#define VIEW_ENTRY(v) &v,
VIEW_LIST(VIEW_DECLARE)
const View *const Views[] = {VIEW_LIST(VIEW_ENTRY)};
const int Views_count = (int)(sizeof Views / sizeof Views[0]);
