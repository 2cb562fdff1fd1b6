package discover

import "testing"

func TestDecodeLegacy(t *testing.T) {
	for _, tt := range []struct {
		name, in, want, note string
		ok                   bool
	}{
		{"utf-8 is left alone", "# café\n", "", "", false},
		{"latin-1", "x = 1\n# caf\xe9\n", "x = 1\n# café\n", "not valid UTF-8 (first bad byte on line 2): read as Windows-1252", true},
		{"windows-1252 quotes", "// \x93quoted\x94 \x80\n", "// “quoted” €\n", "not valid UTF-8 (first bad byte on line 1): read as Windows-1252", true},
		{"binary stays binary", "caf\xe9\x00", "", "", false},
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
