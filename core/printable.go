package core

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Printable returns s safe to write to a terminal. Indexed text can hold
// what drives one: a log pasted into a runbook keeps its colours
// (ESC [31m), a file or a chat message can set the window's title or
// clear the screen. Printable removes escape sequences and shows every
// other control character but tab and newline as its Unicode picture
// (BEL as ␇, a carriage return inside a line as ␍; one that ends a line
// is dropped), C1 controls and bytes that are not UTF-8 as U+FFFD, so
// that printing a chunk never runs it. Every newline is kept (a line's
// number holds) and text without any of these is returned as it is.
func Printable(s string) string {
	if !needsPrintable(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for n, line := range strings.Split(s, "\n") {
		if n > 0 {
			b.WriteByte('\n')
		}
		line = ansi.Strip(strings.TrimSuffix(line, "\r")) // a sequence never spans lines
		for i := 0; i < len(line); {
			r, size := utf8.DecodeRuneInString(line[i:])
			switch {
			case r == utf8.RuneError && size == 1, r >= 0x80 && r <= 0x9f:
				b.WriteRune(utf8.RuneError)
			case r == '\t':
				b.WriteByte('\t')
			case r < 0x20:
				b.WriteRune(0x2400 + r) // ␀ … ␟
			case r == 0x7f:
				b.WriteRune('␡')
			default:
				b.WriteString(line[i : i+size])
			}
			i += size
		}
	}
	return b.String()
}

// needsPrintable reports whether s holds a byte Printable changes: a
// control character but tab and newline, DEL, a C1 control or a byte
// that is not UTF-8.
func needsPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 && c != '\t' && c != '\n', c == 0x7f:
			return true
		case c >= 0x80:
			return !utf8.ValidString(s[i:]) || strings.ContainsFunc(s[i:], func(r rune) bool { return r >= 0x80 && r <= 0x9f })
		}
	}
	return false
}

// Printable returns the chunk with the text a terminal shows of it —
// its text, path, symbol, section, context, author and channel — made Printable.
func (c Chunk) Printable() Chunk {
	c.Text = Printable(c.Text)
	c.FilePath = Printable(c.FilePath)
	c.SourceURI = Printable(c.SourceURI)
	c.SymbolName = Printable(c.SymbolName)
	c.Signature = Printable(c.Signature)
	c.SectionPath = Printable(c.SectionPath)
	c.ContextPrefix = Printable(c.ContextPrefix)
	c.Author = Printable(c.Author)
	c.Channel = Printable(c.Channel)
	return c
}
