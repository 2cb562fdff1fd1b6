package core

import (
	"path"
	"strings"
)

// releaseNoteNames are the names (without extension, lower case) of the
// files projects keep their release history and upgrade notes in.
var releaseNoteNames = map[string]bool{
	"changelog": true, "changes": true, "history": true, "news": true, "releases": true, "release-notes": true,
	"release_notes": true, "releasenotes": true, "whatsnew": true, "whats-new": true, "upgrade": true, "upgrading": true,
}

// releaseNoteDirs are the folders release notes and their fragments are
// kept in (docs/releases/v1.2.md, changie's .changes/, towncrier's
// newsfragments/).
var releaseNoteDirs = map[string]bool{
	"changelog": true, "changelogs": true, "releases": true, "release-notes": true, "release_notes": true,
	".changes": true, "changelog.d": true, "changes.d": true, "newsfragments": true,
}

// IsReleaseNotes reports whether a document is a release history:
// CHANGELOG.md, HISTORY.rst, NEWS, UPGRADE.md, a file under releases/ or
// a changelog fragments folder. Such a document names a service in every
// section; listing what mentions a service puts it after the rest.
func IsReleaseNotes(p string) bool {
	p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
	base := path.Base(p)
	if releaseNoteNames[strings.TrimSuffix(base, path.Ext(base))] {
		return true
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if releaseNoteDirs[d] {
			return true
		}
	}
	return false
}
