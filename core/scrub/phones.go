package scrub

import (
	"strings"

	"github.com/nyaruka/phonenumbers"

	"coderag/core/internal/lazyre"
)

// phoneCandRE finds what may be a phone number: an international number
// (+44 20 7946 0958), a national one starting with 0 (020 7946 0958,
// 030 901820) or with an area code in brackets ((415) 555-0134), or a
// North American number (415-555-0134), its digits in groups.
var phoneCandRE = lazyre.New(`\+\d[\d .\-()/]{6,20}\d|\b0\d[\d .\-/]{6,16}\d|\(\d{2,5}\)\s?\d[\d .\-]{5,12}\d|\b\d{3}[ .\-]\d{3}[ .\-]\d{4}\b`)

// phoneRuns runs phoneCandRE only on runs of digits and separators with
// eight digits or more.
var phoneRuns = rule{digits: 8, re: phoneCandRE}

// phoneRegions are the countries a national number (no +) is tried as,
// in order: the gate's hint first (a Slack export's time zones), then
// the most common ones.
var phoneRegions = []string{"US", "GB", "DE", "FR", "AU", "IN", "NL", "ES", "IT", "CA"}

// findPhones finds phone numbers that libphonenumber
// (github.com/nyaruka/phonenumbers) says are valid.
func findPhones(text string, regions []string) [][]int {
	var out [][]int
	for _, m := range phoneRuns.digitRunMatches(text) {
		cand := text[m[0]:m[1]]
		digits := 0
		for i := 0; i < len(cand); i++ {
			if cand[i] >= '0' && cand[i] <= '9' {
				digits++
			}
		}
		if digits < 8 || digits > 15 {
			continue
		}
		// Not a date, a version or an address (2024-03-14, 10.0.0.12).
		// Nor the seconds of a time (22:57:06.074105 1271) or part of a
		// hash (refs/0123456789abcdef).
		if m[0] > 0 && (isAlnum(text[m[0]-1]) || text[m[0]-1] == '.' || text[m[0]-1] == '-' || text[m[0]-1] == ':') && !strings.HasPrefix(cand, "+") {
			continue
		}
		if m[1] < len(text) && (text[m[1]] == '.' && m[1]+1 < len(text) && isAlnum(text[m[1]+1]) || text[m[1]] == '-' || isAlnum(text[m[1]])) {
			continue
		}
		if strings.Count(cand, ".") >= 3 || datePrefixRE.MatchString(cand) || dateRE.MatchString(cand) || ascending(cand) {
			continue
		}
		if validPhone(cand, regions) {
			out = append(out, m)
		}
	}
	return out
}

var (
	datePrefixRE = lazyre.New(`^(?:19|20)\d\d[-./]\d\d`)
	dateRE       = lazyre.New(`^\d{1,2}[-./]\d{1,2}[-./](?:19|20)?\d\d$`)
)

// ascending reports whether the digits of s count up (0123456789): an
// example, not a number.
func ascending(s string) bool {
	prev := -1
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			continue
		}
		d := int(s[i] - '0')
		if prev >= 0 && d != prev+1 {
			return false
		}
		prev = d
	}
	return true
}

func validPhone(s string, regions []string) bool {
	if strings.HasPrefix(s, "+") {
		n, err := phonenumbers.Parse(s, "")
		return err == nil && phonenumbers.IsValidNumber(n)
	}
	for _, r := range append(append([]string(nil), regions...), phoneRegions...) {
		n, err := phonenumbers.Parse(s, r)
		if err == nil && phonenumbers.IsValidNumberForRegion(n, r) {
			return true
		}
	}
	return false
}
