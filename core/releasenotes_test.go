package core

import "testing"

func TestIsReleaseNotes(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"CHANGELOG.md", true},
		{"services/billing/CHANGELOG.md", true},
		{"HISTORY.rst", true},
		{"NEWS", true},
		{"UPGRADE.md", true},
		{"docs/releases/v2.4.md", true},
		{".changes/unreleased/billing-fix.yaml", true},
		{"newsfragments/1234.bugfix", true},
		{`docs\release-notes\2024.md`, true},
		{"README.md", false},
		{"docs/history-service.md", false},
		{"runbooks/billing-restarts.md", false},
		{"docs/adr/0007-release-process.md", false},
	} {
		if got := IsReleaseNotes(tt.path); got != tt.want {
			t.Errorf("IsReleaseNotes(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
