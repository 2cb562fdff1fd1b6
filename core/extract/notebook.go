package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Notebook extracts a Jupyter notebook (.ipynb, nbformat 4) as
// Markdown-shaped text: Markdown cells as written, code cells fenced with
// the kernel's language (```python), raw cells as plain text, in order.
// Outputs are left out: they hold data, images and tracebacks, not what
// the notebook says. The title is the first Markdown heading. A file
// that is not such a notebook is an error saying what is wrong.
func Notebook(src []byte) (Doc, error) {
	var nb struct {
		Cells *[]struct {
			CellType string          `json:"cell_type"`
			Source   json.RawMessage `json:"source"`
		} `json:"cells"`
		Metadata struct {
			Kernelspec struct {
				Language string `json:"language"`
			} `json:"kernelspec"`
			LanguageInfo struct {
				Name string `json:"name"`
			} `json:"language_info"`
		} `json:"metadata"`
	}
	if t := bytes.TrimSpace(src); len(t) == 0 || t[0] != '{' {
		return Doc{}, errors.New("not a Jupyter notebook: not a JSON object")
	}
	if err := json.Unmarshal(src, &nb); err != nil {
		return Doc{}, fmt.Errorf("not a Jupyter notebook: %w", err)
	}
	if nb.Cells == nil {
		return Doc{}, errors.New(`not a Jupyter notebook: no "cells" (nbformat 4 is read)`)
	}
	lang := strings.ToLower(nb.Metadata.Kernelspec.Language)
	if lang == "" {
		lang = strings.ToLower(nb.Metadata.LanguageInfo.Name)
	}
	var d Doc
	var b strings.Builder
	for i, cell := range *nb.Cells {
		text, err := cellSource(cell.Source)
		if err != nil {
			return Doc{}, fmt.Errorf("notebook cell %d: %w", i+1, err)
		}
		text = strings.TrimRight(text, " \t\r\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		switch cell.CellType {
		case "code":
			fence := "```"
			for strings.Contains(text, fence) {
				fence += "`"
			}
			b.WriteString(fence + lang + "\n" + text + "\n" + fence)
		default:
			if d.Title == "" && cell.CellType == "markdown" {
				d.Title = firstHeading(text)
			}
			b.WriteString(text)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	d.Text = b.String()
	return d, nil
}

// cellSource reads a cell's source: one string, or a list of lines.
func cellSource(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", errors.New("its source is neither a string nor a list of strings")
	}
	return strings.Join(lines, ""), nil
}
