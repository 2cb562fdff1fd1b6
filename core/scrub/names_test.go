package scrub

import (
	"fmt"
	"strings"
	"testing"

	"coderag/core"
)

func TestPersonalDataDetectors(t *testing.T) {
	g := New(Options{IPs: true, Names: []string{"Alice Moreno", "Bob Okafor", "Chen Wei", "Will Parker"}})
	tests := []struct {
		name   string
		corpus core.CorpusType
		people []string
		in     string
		want   string
	}{
		{"known full name", core.ConvoSlack, nil, "I paged Alice Moreno at 14:02", "I paged <PERSON_1> at 14:02"},
		{"full name in lower case", core.ConvoSlack, nil, "ask bob okafor", "ask <PERSON_1>"},
		{"first name shares the placeholder", core.DocGoogle, nil, "Bob Okafor owns it. Bob said yes; Alice agreed.", "<PERSON_1> owns it. <PERSON_1> said yes; <PERSON_2> agreed."},
		{"last name alone", core.ConvoTranscript, nil, "Okafor is on call", "<PERSON_1> is on call"},
		{"ambiguous first name alone stays", core.ConvoSlack, nil, "Will the deploy finish? Will Parker knows.", "Will the deploy finish? <PERSON_1> knows."},
		{"lower-case first name stays", core.ConvoSlack, nil, "the alice test cluster", "the alice test cluster"},
		{"speaker of this transcript", core.ConvoTranscript, []string{"Dima Gusakov | Lido", "nixo"}, "Dima Gusakov: thanks nixo", "<PERSON_1>: thanks <PERSON_2>"},
		{"honorific", core.ConvoSlack, nil, "@alice escalated to Dr. Smith about patient 12345", "@alice escalated to <PERSON_1> about patient <MRN_1>"},
		{"honorific with two names", core.DocRunbook, nil, "call Mrs Jane Doe", "call <PERSON_1>"},
		{"labelled names", core.DocGoogle, nil, "Author: Dana Kowalski   Reviewers: Eve Ng, Farid Haddad and Gus Lee\nStatus: draft", "Author: <PERSON_1>   Reviewers: <PERSON_2>, <PERSON_3> and <PERSON_4>\nStatus: draft"},
		{"label followed by a team is no name", core.DocRunbook, nil, "Owner: Platform team", "Owner: Platform team"},
		{"label followed by prose", core.DocRunbook, nil, "Notes: the deploy failed twice", "Notes: the deploy failed twice"},
		{"mrn", core.DocGoogle, nil, "MRN: 00482913 was in the log", "MRN: <MRN_1> was in the log"},
		{"iban with spaces", core.ConvoSlack, nil, "refund to DE89 3704 0044 0532 0130 00 today", "refund to <IBAN_1> today"},
		{"iban compact", core.DocGoogle, nil, "IBAN GB82WEST12345698765432.", "IBAN <IBAN_1>."},
		{"bad iban checksum stays", core.DocGoogle, nil, "ref DE00 3704 0044 0532 0130 00", "ref DE00 3704 0044 0532 0130 00"},
		{"ipv4", core.ConvoSlack, nil, "client 203.0.113.42 hammered us", "client <IP_1> hammered us"},
		{"ipv6", core.ConvoSlack, nil, "from 2001:db8::8a2e:370:7334 again", "from <IP_1> again"},
		{"times are not ipv6", core.ConvoTranscript, nil, "at 10:30:00 and 12:45", "at 10:30:00 and 12:45"},
		{"names are not scrubbed in code", core.CodeLogic, nil, "// Alice Moreno wrote this", "// Alice Moreno wrote this"},
		{"names are not scrubbed in readmes", core.DocReadme, nil, "Maintainer: Alice Moreno", "Maintainer: Alice Moreno"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cc, err := g.Clean(chunk(tt.corpus, tt.in), tt.people...)
			if err != nil {
				t.Fatal(err)
			}
			if cc.Text() != tt.want {
				t.Errorf("Clean(%q)\n got %q\nwant %q", tt.in, cc.Text(), tt.want)
			}
			if (tt.in != tt.want) != cc.Scrubbed() {
				t.Errorf("Scrubbed() = %v", cc.Scrubbed())
			}
		})
	}
}

// TestNamesInEveryField scrubs a transcript chunk's author, prefix and
// metadata with the same placeholders as its text.
func TestNamesInEveryField(t *testing.T) {
	c := chunk(core.ConvoTranscript, "[00:00:10] Ana Silva: the broker disk is full\n[00:00:20] Bo Chen: expanding it")
	c.Author = "Ana Silva"
	c.ContextPrefix = "sync > 00:00:10 > Ana Silva, Bo Chen"
	c.Meta = map[string]string{"speakers": "Ana Silva, Bo Chen"}
	cc, err := New(Options{}).Clean(c, "Ana Silva", "Bo Chen")
	if err != nil {
		t.Fatal(err)
	}
	got := cc.Chunk()
	if got.Author != "<PERSON_1>" || got.ContextPrefix != "sync > 00:00:10 > <PERSON_1>, <PERSON_2>" || got.Meta["speakers"] != "<PERSON_1>, <PERSON_2>" {
		t.Errorf("author %q prefix %q meta %q", got.Author, got.ContextPrefix, got.Meta["speakers"])
	}
	if !strings.Contains(got.Text, "<PERSON_1>: the broker disk") || strings.Contains(got.Text, "Ana") {
		t.Errorf("text %q", got.Text)
	}
	if a := cc.Audit(); a.EntitiesFound != 2 || strings.Join(a.EntityTypes, ",") != "PERSON" {
		t.Errorf("audit %+v", a)
	}
}

func TestIPsOnlyWhenConfigured(t *testing.T) {
	in := "client 203.0.113.42"
	cc, _ := New(Options{}).Clean(chunk(core.ConvoSlack, in))
	if cc.Text() != in {
		t.Errorf("IPs scrubbed without Options.IPs: %q", cc.Text())
	}
}

func FuzzFindNames(f *testing.F) {
	f.Add("Alice Moreno and Bob met Dr. Who; Reviewers: A B, C D and E F")
	f.Fuzz(func(t *testing.T, text string) {
		ix := newNameIndex()
		ix.add("Alice Moreno")
		ix.add("Bob Okafor")
		for _, s := range findNames(text, ix) {
			if s.start < 0 || s.end > len(text) || s.start >= s.end {
				t.Fatalf("span %d-%d in %d bytes", s.start, s.end, len(text))
			}
		}
		for _, s := range labelledNames(text) {
			if s[0] < 0 || s[1] > len(text) || s[0] >= s[1] {
				t.Fatalf("label span %v in %d bytes", s, len(text))
			}
		}
		findIBANs(text)
		findIPs(text)
		g := New(Options{IPs: true, Names: []string{"Alice Moreno"}})
		g.Clean(chunk(core.ConvoTranscript, text), "Bob Okafor")
	})
}

// BenchmarkCleanTiers scrubs a conversation-like text (prose, a few
// e-mail addresses, times, names of a 500-person workspace) in each tier:
// clean sources only for secrets, the others for personal data too.
func BenchmarkCleanTiers(b *testing.B) {
	var people []string
	for i := 0; i < 500; i++ {
		people = append(people, fmt.Sprintf("Person%03d Surname%03d", i, i))
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 64<<10; i++ {
		fmt.Fprintf(&sb, "[14:%02d] @user%d: checkout answers 502 again, Person%03d Surname%03d is looking at the cart pods.\n", i%60, i%40, i%500, i%500)
		fmt.Fprintf(&sb, "[14:%02d] @user%d: redis-0 restarted, mail ops-%d@acme-corp.io if it happens again; Reviewers: Ana Silva, Bo Chen\n", i%60, i%40, i)
	}
	text := sb.String()
	for _, corpus := range []core.CorpusType{core.CodeLogic, core.ConvoSlack, core.ConvoTranscript} {
		b.Run(string(corpus.Type().Sensitivity), func(b *testing.B) {
			g := New(Options{Names: people})
			c := chunk(corpus, text)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := g.Clean(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
