/* Linked with every object of one layer and only the layers below it (meson.build): the
 * program does nothing; that it links at all is the check. */
int main(void) { return 0; }
