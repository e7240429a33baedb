#ifndef HANDOFF_CNCURSES_SHIM_H
#define HANDOFF_CNCURSES_SHIM_H

// Wide characters (a draft in any script, the book titles' typographic quotes): ncursesw with
// the X/Open wide-character API, and setlocale before initscr.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <langinfo.h>
#include <locale.h>
#include <string.h>
#include <ncursesw/curses.h>

// What curses.h gives as macros, which Swift does not import, as functions.
static inline WINDOW *hn_stdscr(void) { return stdscr; }
static inline int hn_attr_bold(void) { return (int)A_BOLD; }
static inline int hn_attr_dim(void) { return (int)A_DIM; }
static inline int hn_attr_reverse(void) { return (int)A_REVERSE; }
static inline int hn_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int hn_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int hn_key_code_yes(void) { return KEY_CODE_YES; }
// The environment's locale; where its characters are not UTF-8 (no LANG at all: a root shell
// over ssh on a minimal system, `env -i`), C.UTF-8's (glibc has it built in): ncurses writes
// anything outside the locale's codeset as ~@~T. 1 if characters are UTF-8 now.
static inline int hn_set_locale(void) {
    setlocale(LC_ALL, "");
    if (strcmp(nl_langinfo(CODESET), "UTF-8") == 0) return 1;
    return setlocale(LC_CTYPE, "C.UTF-8") != NULL && strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
}
// The terminal on stdin/stdout (Swift 6 does not read C's global FILE pointers).
static inline SCREEN *hn_newterm(void) { return newterm(NULL, stdout, stdin); }
// Whether the terminal (as terminfo describes TERM) can put the cursor anywhere: a "dumb" one
// (Emacs' shell buffer, a pipe-like console) takes newterm and then shows nothing.
static inline int hn_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}

#endif
