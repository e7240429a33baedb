#ifndef HANDOFF_CNCURSES_SHIM_H
#define HANDOFF_CNCURSES_SHIM_H

// Wide characters (a draft in any script, the book titles' typographic quotes): ncursesw with
// the X/Open wide-character API, and setlocale before initscr.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#include <locale.h>
#include <ncursesw/curses.h>

// What curses.h gives as macros, which Swift does not import, as functions.
static inline WINDOW *hn_stdscr(void) { return stdscr; }
static inline int hn_attr_bold(void) { return (int)A_BOLD; }
static inline int hn_attr_dim(void) { return (int)A_DIM; }
static inline int hn_attr_reverse(void) { return (int)A_REVERSE; }
static inline int hn_attr_underline(void) { return (int)A_UNDERLINE; }
static inline int hn_color_pair(int n) { return (int)COLOR_PAIR(n); }
static inline int hn_key_code_yes(void) { return KEY_CODE_YES; }
static inline void hn_set_locale(void) { setlocale(LC_ALL, ""); }
// The terminal on stdin/stdout (Swift 6 does not read C's global FILE pointers).
static inline SCREEN *hn_newterm(void) { return newterm(NULL, stdout, stdin); }
// Whether the terminal (as terminfo describes TERM) can put the cursor anywhere: a "dumb" one
// (Emacs' shell buffer, a pipe-like console) takes newterm and then shows nothing.
static inline int hn_can_address_cursor(void) {
    char *cup = tigetstr("cup");
    return cup != NULL && cup != (char *)-1;
}

#endif
