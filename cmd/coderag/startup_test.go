package main

import (
	"regexp"
	"strconv"
	"testing"
)

// initTraceRE is a line of GODEBUG=inittrace=1: a package's init, what it
// allocated.
var initTraceRE = regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes`)

// TestStartupLoadsNoPhoneMetadata: every coderag process links the scrub
// gate's phone number library, and its metadata (2.4 MB decoded, about 7
// ms) is loaded at the first number checked, not when the process starts:
// a one-shot query checks none (core/scrub/internal/phonenumbers/README.md).
// Bytes allocated, not time, so the check does not depend on the machine.
func TestStartupLoadsNoPhoneMetadata(t *testing.T) {
	cmd := binaryCmd("--version")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("coderag --version: %v\n%s", err, out)
	}
	found := false
	for _, m := range initTraceRE.FindAllStringSubmatch(string(out), -1) {
		if m[1] != "github.com/nyaruka/phonenumbers" {
			continue
		}
		found = true
		if n, _ := strconv.Atoi(m[2]); n > 1<<20 {
			t.Errorf("the phone number library's init allocated %d bytes: its metadata is loaded at start", n)
		}
	}
	if !found {
		t.Errorf("no init trace of github.com/nyaruka/phonenumbers in:\n%s", out)
	}
}
