package extract

import (
	"archive/zip"
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "update golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		os.WriteFile(p, []byte(got), 0o644)
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", p, d)
	}
}

func TestHTML(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "gdoc-export.html"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := HTML(src)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "gdoc-export.golden", "title: "+doc.Title+"\n\n"+doc.Text)
	for _, gone := range []string{"font-size", "tracking", "&nbsp;", "&gt;"} {
		if strings.Contains(doc.Text, gone) {
			t.Errorf("text holds %q", gone)
		}
	}
}

// docx builds a Word document from body XML, with a styles part that
// names headings in another language (the style id says nothing; the
// outline level does).
func docx(t *testing.T, body string) []byte {
	t.Helper()
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml":   `<?xml version="1.0"?><w:document ` + ns + `><w:body>` + body + `</w:body></w:document>`,
		"word/styles.xml": `<?xml version="1.0"?><w:styles ` + ns + `>` +
			`<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
			`<w:style w:type="paragraph" w:styleId="Rubrik2"><w:name w:val="Rubrik 2"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>` +
			`</w:styles>`,
		"docProps/core.xml": `<?xml version="1.0"?><cp:coreProperties xmlns:cp="x" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Ledger runbook</dc:title></cp:coreProperties>`,
	}
	for _, name := range []string{"[Content_Types].xml", "word/document.xml", "word/styles.xml", "docProps/core.xml"} {
		w, _ := zw.Create(name)
		w.Write([]byte(parts[name]))
	}
	zw.Close()
	return buf.Bytes()
}

func p(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t>` + text + `</w:t></w:r></w:p>`
}

func TestDOCX(t *testing.T) {
	body := p("berschrift1", "Ledger DB locks") +
		p("", "When charges time out, look for a migration holding a lock.") +
		`<w:p><w:r><w:t>Run</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve">SELECT * FROM pg_locks</w:t></w:r><w:r><w:br/><w:t>then decide.</w:t></w:r></w:p>` +
		p("Rubrik2", "Steps") +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr></w:pPr><w:r><w:t>Find the blocking pid.</w:t></w:r></w:p>` +
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr></w:pPr><w:r><w:t>Cancel the migration.</w:t></w:r><w:r><w:delText>Kill it</w:delText></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc>` + p("", "Alert") + `</w:tc><w:tc>` + p("", "Threshold") + `</w:tc></w:tr>` +
		`<w:tr><w:tc>` + p("", "LedgerLockWaits") + p("", "(paging)") + `</w:tc><w:tc>` + p("", "5 s") + `</w:tc></w:tr></w:tbl>` +
		p("", "Owner: payments team.")
	doc, err := DOCX(docx(t, body))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "docx.golden", "title: "+doc.Title+"\n\n"+doc.Text)
	if strings.Contains(doc.Text, "Kill it") {
		t.Error("deleted text (w:delText) was kept")
	}
}

func TestDOCXBadInput(t *testing.T) {
	var noDoc bytes.Buffer
	zw := zip.NewWriter(&noDoc)
	w, _ := zw.Create("hello.txt")
	w.Write([]byte("hi"))
	zw.Close()
	tests := []struct {
		name string
		src  []byte
		want string
	}{
		{"plain text", []byte("this is not a docx"), "not a zip archive"},
		{"empty", nil, "not a zip archive"},
		{"zip without a document", noDoc.Bytes(), "no word/document.xml"},
		{"broken XML", docx(t, `<w:p><w:r><w:t>unclosed`), "word/document.xml line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DOCX(tt.src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("DOCX = %v, want an error containing %q", err, tt.want)
			}
			if tt.want != "word/document.xml line 1" && !errors.Is(err, ErrNotDOCX) {
				t.Errorf("error %v is not ErrNotDOCX", err)
			}
		})
	}
}

func FuzzHTML(f *testing.F) {
	src, _ := os.ReadFile(filepath.Join("testdata", "gdoc-export.html"))
	f.Add(src)
	f.Add([]byte("<ul><li><ol><li>x<table><tr><td>a<pre>b</pre></td></tr></table></li></ol></li></ul>"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc, err := HTML(src)
		if err == nil && !strings.HasSuffix(doc.Text, "\n") {
			t.Fatal("text does not end with a newline")
		}
	})
}

// TestNotebook: a notebook's cells in order, Markdown as written and code
// fenced with the kernel's language (a longer fence when the code holds
// one); outputs, where tracebacks and data live, are left out.
func TestNotebook(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "forecast.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Notebook(src)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Invoice volume forecast" {
		t.Errorf("title %q", d.Title)
	}
	for _, out := range []string{"sk-live-abc123", "iVBORw0KGgo", "0     0       112"} {
		if strings.Contains(d.Text, out) {
			t.Errorf("an output (%q) reached the text", out)
		}
	}
	golden(t, "forecast.ipynb.golden", d.Text)
}

func TestNotebookBadInput(t *testing.T) {
	for _, tt := range []struct{ name, src, want string }{
		{"not json", "print('hi')", "not a JSON object"},
		{"broken json", `{"cells": [`, "not a Jupyter notebook: unexpected end of JSON input"},
		{"no cells", `{"nbformat": 3, "worksheets": []}`, `no "cells" (nbformat 4 is read)`},
		{"bad source", `{"cells": [{"cell_type": "code", "source": 42}]}`, "notebook cell 1: its source is neither a string nor a list of strings"},
	} {
		if _, err := Notebook([]byte(tt.src)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Notebook = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	d, err := Notebook([]byte(`{"cells": [{"cell_type": "markdown", "source": "# Empty\n"}, {"cell_type": "code", "source": null}]}`))
	if err != nil || d.Text != "# Empty\n" {
		t.Errorf("string and null sources: %q, %v", d.Text, err)
	}
}
