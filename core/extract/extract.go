// Package extract turns exported documents — Google Docs saved as HTML or
// DOCX — into Markdown-shaped text: headings as "#" lines, list items as
// "- " lines, table rows as "| a | b |" lines, so that the Markdown
// chunker can cut them by heading. Formatting beyond that is dropped.
package extract

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"coderag/core/internal/lazyre"
)

// Doc is an extracted document.
type Doc struct {
	Title string
	// Text is the document as Markdown-shaped text.
	Text string
}

// maxXML bounds the uncompressed size of a DOCX part (a zip bomb guard).
const maxXML = 64 << 20

// HTML extracts the text of an HTML document, keeping headings, lists,
// tables and preformatted blocks.
func HTML(src []byte) (Doc, error) {
	root, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return Doc{}, fmt.Errorf("parse HTML: %w", err)
	}
	w := &writer{}
	var doc Doc
	var walk func(n *html.Node, list []int)
	walk = func(n *html.Node, list []int) {
		switch n.Type {
		case html.TextNode:
			w.text(n.Data)
			return
		case html.ElementNode:
		default:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, list)
			}
			return
		}
		switch n.DataAtom {
		case atom.Script, atom.Style, atom.Noscript, atom.Svg, atom.Template, atom.Iframe, atom.Object:
			return
		case atom.Title:
			doc.Title = strings.TrimSpace(textOf(n))
			return
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			w.block()
			w.raw(strings.Repeat("#", int(n.Data[1]-'0')) + " ")
			w.inline(textOf(n))
			w.block()
			return
		case atom.Pre:
			w.block()
			w.raw("```\n" + strings.Trim(textOf(n), "\n") + "\n```")
			w.block()
			return
		case atom.Br:
			w.line()
			return
		case atom.Ul, atom.Ol:
			// A list inside a list item goes on the next line.
			if len(list) > 0 {
				w.line()
			} else {
				w.block()
			}
			if n.DataAtom == atom.Ul {
				list = append(list, 0)
			} else {
				list = append(list, 1)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, list)
			}
			if len(list) > 1 {
				w.line()
			} else {
				w.block()
			}
			return
		case atom.A:
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, list)
			}
			if href := linkTarget(n); href != "" && !strings.Contains(textOf(n), href) {
				w.text(" (" + href + ")")
			}
			return
		case atom.Li:
			w.line()
			indent := strings.Repeat("  ", max(len(list)-1, 0))
			if len(list) > 0 && list[len(list)-1] > 0 {
				w.raw(indent + strconv.Itoa(list[len(list)-1]) + ". ")
				list[len(list)-1]++
			} else {
				w.raw(indent + "- ")
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, list)
			}
			w.line()
			return
		case atom.Tr:
			w.line()
			var cells []string
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
					cells = append(cells, collapse(textOf(c)))
				}
			}
			w.raw("| " + strings.Join(cells, " | ") + " |")
			w.line()
			return
		}
		if n.DataAtom == atom.P && hasClass(n, "title") {
			w.block()
			w.raw("# ")
			w.inline(textOf(n))
			w.block()
			return
		}
		block := isBlock(n.DataAtom)
		if block {
			w.block()
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, list)
		}
		if block {
			w.block()
		}
	}
	walk(root, nil)
	doc.Text = w.String()
	if doc.Title == "" {
		doc.Title = firstHeading(doc.Text)
	}
	return doc, nil
}

// linkTarget is an element's http(s) link, unwrapped from Google's
// redirector.
func linkTarget(n *html.Node) string {
	for _, a := range n.Attr {
		if a.Key != "href" {
			continue
		}
		u, err := url.Parse(a.Val)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return ""
		}
		if strings.HasSuffix(u.Host, "google.com") && u.Path == "/url" {
			if q := u.Query().Get("q"); strings.HasPrefix(q, "http") {
				return q
			}
		}
		return a.Val
	}
	return ""
}

func isBlock(a atom.Atom) bool {
	switch a {
	case atom.P, atom.Div, atom.Section, atom.Article, atom.Header, atom.Footer, atom.Main, atom.Aside, atom.Nav,
		atom.Blockquote, atom.Table, atom.Ul, atom.Ol, atom.Dl, atom.Dt, atom.Dd, atom.Hr, atom.Figure, atom.Body:
		return true
	}
	return false
}

func hasClass(n *html.Node, class string) bool {
	for _, a := range n.Attr {
		if a.Key == "class" {
			for _, c := range strings.Fields(a.Val) {
				if c == class {
					return true
				}
			}
		}
	}
	return false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style):
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

var spaces = lazyre.New(`[\s\x{00a0}]+`)

func collapse(s string) string { return strings.TrimSpace(spaces.ReplaceAllString(s, " ")) }

// writer builds the text: inline text with collapsed spaces, lines and
// blank-line separated blocks.
type writer struct {
	b       strings.Builder
	pending string // separator owed before the next text
}

func (w *writer) String() string { return strings.TrimSpace(w.b.String()) + "\n" }

func (w *writer) sep(s string) {
	if w.b.Len() == 0 {
		return
	}
	if len(s) > len(w.pending) {
		w.pending = s
	}
}

func (w *writer) block() { w.sep("\n\n") }
func (w *writer) line()  { w.sep("\n") }

func (w *writer) raw(s string) {
	w.b.WriteString(w.pending)
	w.pending = ""
	w.b.WriteString(s)
}

// text writes inline text, collapsing white space as a browser does.
func (w *writer) text(s string) {
	c := spaces.ReplaceAllString(s, " ")
	if strings.TrimSpace(c) == "" {
		if c != "" && w.pending == "" && w.b.Len() > 0 && !strings.HasSuffix(w.b.String(), " ") && !strings.HasSuffix(w.b.String(), "\n") {
			w.b.WriteByte(' ')
		}
		return
	}
	if w.pending != "" || w.b.Len() == 0 || strings.HasSuffix(w.b.String(), "\n") || strings.HasSuffix(w.b.String(), "- ") || strings.HasSuffix(w.b.String(), "# ") {
		c = strings.TrimLeft(c, " ")
	}
	w.raw(c)
}

func (w *writer) inline(s string) { w.raw(collapse(s)) }

func firstHeading(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "# ") {
			return strings.TrimSpace(l[2:])
		}
	}
	return ""
}

// ErrNotDOCX is returned for a .docx file that is not a Word document.
var ErrNotDOCX = errors.New("not a DOCX file")

// DOCX extracts the text of a Word document: paragraphs, headings (by
// their style's outline level or "heading N" name), list items and
// tables.
func DOCX(src []byte) (Doc, error) {
	zr, err := zip.NewReader(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		return Doc{}, fmt.Errorf("%w (not a zip archive: %v)", ErrNotDOCX, err)
	}
	read := func(name string) ([]byte, error) {
		for _, f := range zr.File {
			if f.Name == name {
				if f.UncompressedSize64 > maxXML {
					return nil, fmt.Errorf("%s: %d bytes uncompressed, over the %d byte limit", name, f.UncompressedSize64, maxXML)
				}
				rc, err := f.Open()
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				defer rc.Close()
				data, err := io.ReadAll(io.LimitReader(rc, maxXML+1))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
				if len(data) > maxXML {
					return nil, fmt.Errorf("%s: over the %d byte limit uncompressed", name, maxXML)
				}
				return data, nil
			}
		}
		return nil, nil
	}
	body, err := read("word/document.xml")
	if err != nil {
		return Doc{}, err
	}
	if body == nil {
		return Doc{}, fmt.Errorf("%w (no word/document.xml in the archive)", ErrNotDOCX)
	}
	styles, err := read("word/styles.xml")
	if err != nil {
		return Doc{}, err
	}
	levels := styleLevels(styles)
	var doc Doc
	if core, _ := read("docProps/core.xml"); core != nil {
		doc.Title = coreTitle(core)
	}
	text, err := docxText(body, levels)
	if err != nil {
		return Doc{}, err
	}
	doc.Text = text
	if doc.Title == "" {
		doc.Title = firstHeading(text)
	}
	return doc, nil
}

var headingName = lazyre.New(`(?i)^heading\s*(\d)$`)

// styleLevels maps paragraph style ids to heading levels (1-6).
func styleLevels(styles []byte) map[string]int {
	levels := map[string]int{"Title": 1, "Subtitle": 2}
	for i := 1; i <= 6; i++ {
		levels["Heading"+strconv.Itoa(i)] = i
	}
	if styles == nil {
		return levels
	}
	dec := xml.NewDecoder(bytes.NewReader(styles))
	id, name, outline := "", "", -1
	for {
		tok, err := dec.Token()
		if err != nil {
			return levels
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id, name, outline = attr(t, "styleId"), "", -1
			case "name":
				name = attr(t, "val")
			case "outlineLvl":
				if v, err := strconv.Atoi(attr(t, "val")); err == nil && v < 6 {
					outline = v
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" && id != "" {
				switch m := headingName.FindStringSubmatch(name); {
				case outline >= 0:
					levels[id] = outline + 1
				case m != nil:
					levels[id], _ = strconv.Atoi(m[1])
				case strings.EqualFold(name, "title"):
					levels[id] = 1
				}
			}
		}
	}
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func coreTitle(core []byte) string {
	dec := xml.NewDecoder(bytes.NewReader(core))
	in := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Local == "title"
		case xml.CharData:
			if in {
				return strings.TrimSpace(string(t))
			}
		case xml.EndElement:
			in = false
		}
	}
}

// docxText walks word/document.xml.
func docxText(body []byte, levels map[string]int) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	w := &writer{}
	var para strings.Builder
	style, list, inText := "", false, false
	var row []string
	var cell strings.Builder
	tableDepth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := dec.InputPos()
			return "", fmt.Errorf("word/document.xml line %d: %w", line, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "p":
				para.Reset()
				style, list = "", false
			case "pStyle":
				style = attr(t, "val")
			case "numPr":
				list = true
			case "t", "delText":
				inText = t.Name.Local == "t"
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "tbl":
				tableDepth++
				w.block()
			case "tr":
				row = nil
			case "tc":
				cell.Reset()
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "t", "delText":
				inText = false
			case "p":
				text := strings.TrimSpace(para.String())
				switch {
				case text == "":
				case tableDepth > 0:
					if cell.Len() > 0 {
						cell.WriteByte(' ')
					}
					cell.WriteString(text)
				case levels[style] > 0:
					w.block()
					w.raw(strings.Repeat("#", levels[style]) + " " + collapse(text))
					w.block()
				case list:
					w.line()
					w.raw("- " + text)
					w.line()
				default:
					w.block()
					w.raw(text)
					w.block()
				}
			case "tc":
				row = append(row, collapse(cell.String()))
			case "tr":
				w.line()
				w.raw("| " + strings.Join(row, " | ") + " |")
				w.line()
			case "tbl":
				tableDepth--
				w.block()
			}
		}
	}
	return w.String(), nil
}
