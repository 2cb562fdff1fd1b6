package discover

import "testing"

func TestDecodeLegacy(t *testing.T) {
	for _, tt := range []struct {
		name, in, want, note string
		ok                   bool
	}{
		{"utf-8 is left alone", "# café\n", "", "", false},
		{"latin-1", "x = 1\n# caf\xe9\n", "x = 1\n# café\n", "not valid UTF-8 (first bad byte on line 2): read as Windows-1252", true},
		{"windows-1252 quotes", "// the \x93net\x94 price in \x80, before taxes and delivery\n", "// the “net” price in €, before taxes and delivery\n", "not valid UTF-8 (first bad byte on line 1): read as Windows-1252", true},
		{"binary stays binary", "caf\xe9\x00", "", "", false},
		{"control bytes are binary", "\x8b\x03hello\xe9 world", "", "", false},
		{"mostly high bytes are not text", "ab\xe9\xf1\xfc\xe8\xe0 cd", "", "", false},
		{"utf-16 is not guessed", "\xff\xfec\x00a\x00", "", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, note, ok := DecodeLegacy([]byte(tt.in))
			if ok != tt.ok || string(got) != tt.want || note != tt.note {
				t.Errorf("DecodeLegacy(%q) = %q, %q, %v; want %q, %q, %v", tt.in, got, note, ok, tt.want, tt.note, tt.ok)
			}
		})
	}
}
