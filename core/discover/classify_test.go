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
		{"utf-8 with one latin-1 byte", "s = \"na\xc3\xafve\" # caf\xe9\n", "s = \"naïve\" # café\n", "not valid UTF-8 (first bad byte on line 1): read as Windows-1252", true},
		{"utf-8 in chinese with one bad byte", "// 处理订单的服务\n// 价格 \xa3 含税\nfunc price() {}\n", "// 处理订单的服务\n// 价格 £ 含税\nfunc price() {}\n", "not valid UTF-8 (first bad byte on line 2): read as Windows-1252", true},
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

func TestDecodeText(t *testing.T) {
	utf16le := "\xff\xfe" + "p\x00r\x00i\x00n\x00t\x00(\x00'\x00\xe9\x00'\x00)\x00\r\x00\n\x00"
	utf16be := "\xfe\xff" + "\x00S\x00E\x00L\x00E\x00C\x00T\x00 \x00\x01\x00\n"
	for _, tt := range []struct {
		name, in, want, note string
		ok                   bool
	}{
		{"utf-8 is left alone", "# café\n", "", "", false},
		{"utf-16le with a mark", utf16le, "print('é')\r\n", "UTF-16 text (byte order mark): decoded to UTF-8", true},
		{"utf-16be with a mark", "\xfe\xff\x00h\x00i\x00\n", "hi\n", "UTF-16 text (byte order mark): decoded to UTF-8", true},
		{"utf-16be with controls is binary", utf16be, "", "", false},
		{"utf-16 of odd length is binary", "\xff\xfeh\x00i", "", "", false},
		{"utf-16 with a broken surrogate", "\xff\xfe\x00\xd8a\x00", "", "", false},
		{"utf-8's mark is dropped", "\xef\xbb\xbfapiVersion: v1\nkind: ConfigMap\n", "apiVersion: v1\nkind: ConfigMap\n", "", true},
		{"utf-8's mark before latin-1", "\xef\xbb\xbfx = 1\n# caf\xe9\n", "x = 1\n# café\n", "not valid UTF-8 (first bad byte on line 2): read as Windows-1252", true},
		{"latin-1 still read as windows-1252", "x = 1\n# caf\xe9\n", "x = 1\n# café\n", "not valid UTF-8 (first bad byte on line 2): read as Windows-1252", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, note, ok := DecodeText([]byte(tt.in))
			if ok != tt.ok || string(got) != tt.want || note != tt.note {
				t.Errorf("DecodeText(%q) = %q, %q, %v; want %q, %q, %v", tt.in, got, note, ok, tt.want, tt.note, tt.ok)
			}
		})
	}
}
