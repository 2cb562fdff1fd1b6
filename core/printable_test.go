package core

import "testing"

func TestPrintable(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain text is kept", "func main() {\n\tfmt.Println(\"é 漢\")\n}", "func main() {\n\tfmt.Println(\"é 漢\")\n}"},
		{"colours of a pasted log", "printed \x1b[31mERROR\x1b[0m connection refused", "printed ERROR connection refused"},
		{"window title", "before\x1b]0;owned\x07after", "beforeafter"},
		{"clear screen", "a\x1b[2Jb", "ab"},
		{"bell and backspace", "ring\x07 back\x08", "ring␇ back␈"},
		{"crlf is lf, a lone cr is shown", "one\r\ntwo\rthree", "one\ntwo␍three"},
		{"nul and del", "a\x00b\x7fc", "a␀b␡c"},
		{"c1 csi", "x\u009b31my", "x\ufffd31my"},
		{"bytes that are not utf-8", "caf\xe9", "caf\ufffd"},
		{"a lone escape", "end\x1b", "end"},
		{"an unterminated title keeps the next lines", "a\x1b]0;title\nb\nc", "a\nb\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Printable(tt.in); got != tt.want {
				t.Errorf("Printable(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestChunkPrintable(t *testing.T) {
	c := Chunk{Text: "\x1b[2Jhi", FilePath: "logs/\x1b]0;x\x07run.log", SymbolName: "a\x07", SectionPath: "Deploy > \x1b[1mNow\x1b[0m", Author: "bot\x08"}
	p := c.Printable()
	if p.Text != "hi" || p.FilePath != "logs/run.log" || p.SymbolName != "a␇" || p.SectionPath != "Deploy > Now" || p.Author != "bot␈" {
		t.Errorf("Printable() = %+v", p)
	}
	if c.Text != "\x1b[2Jhi" {
		t.Errorf("Printable changed the chunk it was called on: %q", c.Text)
	}
}

func BenchmarkPrintablePlain(b *testing.B) {
	s := "func (s *Server) handleOrder(w http.ResponseWriter, r *http.Request) {\n\t// é 漢 the order's total\n\treturn\n}\n"
	for b.Loop() {
		Printable(s)
	}
}
