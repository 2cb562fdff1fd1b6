package search

import (
	"path"
	"strings"

	"coderag/core"
	"coderag/core/codetok"
	"coderag/core/internal/lazyre"
)

// Prior factors of files that rarely answer a question about a system:
// tests answer questions about tests; repository boilerplate (issue and
// pull request templates, licence, code of conduct, security policy,
// contribution guide, changelog) and tool configuration (lint, format,
// editor, git attributes, TypeScript project files, lock files) answer
// questions about themselves. A query that names such a file, or asks
// about tests, lifts its prior. The factors are Params'.

var (
	boilerplateNameRE = lazyre.New(`(?i)^(pull_request_template|issue_template|bug_report|feature_request|license|licence|copying|notice|code_of_conduct|security|contributing|changelog|changes|history|authors|codeowners|maintainers)(\.[a-z]+)?$`)
	toolConfigRE      = lazyre.New(`(?i)^(\.gitattributes|\.gitignore|\.dockerignore|\.editorconfig|\.prettierrc.*|\.prettierignore|\.eslintrc.*|eslint\.config\.[cm]?[jt]s|\.stylelintrc.*|\.markdownlint.*|\.yamllint.*|\.golangci\.ya?ml|\.pre-commit-config\.yaml|tsconfig.*\.json|jsconfig\.json|\.nvmrc|\.npmrc|\.babelrc.*|babel\.config\.[cm]?js|.*\.lock|package-lock\.json|go\.sum|poetry\.lock|copilot-instructions\.md|renovate\.json|dependabot\.ya?ml|\.releaserc.*|checkstyle\.xml)$`)
	testWords         = set([]string{"test", "tests", "testing", "spec", "specs", "e2e", "unittest", "pytest", "jest", "cypress", "playwright", "locust", "k6"})
	// ciConfigRE are CI pipeline definitions (GitHub Actions, GitLab CI,
	// Azure Pipelines, Jenkins, CircleCI, Bitbucket, Travis): how code is
	// built, tested and released, not how the system behaves, and full of
	// step names ("Checkout", workflow_call) that match plain questions.
	ciConfigRE = lazyre.New(`(?i)(^|/)(\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|azure-pipelines[^/]*\.ya?ml|jenkinsfile|\.circleci/config\.ya?ml|bitbucket-pipelines\.ya?ml|\.travis\.ya?ml)$`)
	// ciWords in a query ask about the pipelines themselves.
	ciWords = set([]string{"ci", "cd", "workflow", "workflows", "pipeline", "pipelines", "action", "actions", "github", "gitlab",
		"jenkins", "circleci", "build", "builds", "built", "release", "releases", "publish", "published", "job", "jobs", "runner", "lint",
		"deploy", "deploys", "deployed"})
	// testImports are test and load-test frameworks: a file that imports
	// one is test code wherever it lives (a Locust locustfile, a k6
	// script, a pytest helper, a Go test helper outside a _test.go file).
	testImports = set([]string{"locust", "k6", "k6/http", "pytest", "unittest", "@playwright/test", "cypress", "vitest", "@jest/globals", "testing"})
	// translationFileRE are translation catalog formats: gettext, XLIFF,
	// Flutter's ARB, Apple's .strings, Fluent, .NET resources of a
	// culture (Strings.de.resx), Java resource bundles of a locale
	// (messages_de.properties).
	translationFileRE = lazyre.New(`(?i)(\.(po|pot|xlf|xliff|arb|strings|ftl)|\.[a-z]{2}(-[a-z]{2,4})?\.resx|_[a-z]{2}(_[a-z]{2})?\.properties)$`)
	// translationDirs are the folders of translation catalogs.
	translationDirs = set([]string{"locale", "locales", "i18n", "l10n", "translations", "translation", "lang", "langs", "languages", "lc_messages"})
	// i18nWords in a query ask about translations or the text a user
	// sees.
	i18nWords = set([]string{"translation", "translations", "translate", "translated", "translating", "i18n", "l10n", "locale", "locales",
		"localization", "localisation", "localized", "localised", "language", "languages", "wording", "label", "labels", "text", "texts",
		"string", "strings", "says", "shown", "displayed", "gettext", "po"})
)

// isCIConfig reports whether p is a CI pipeline's file (ciConfigRE, tried
// only on a YAML file or a Jenkinsfile).
func isCIConfig(p string) bool {
	lp := strings.ToLower(p)
	return (strings.HasSuffix(lp, ".yml") || strings.HasSuffix(lp, ".yaml") || strings.HasSuffix(lp, "jenkinsfile")) && ciConfigRE.MatchString(p)
}

// isTranslationCatalog reports whether a file holds translations of a
// user interface's text: a catalog format, or data in a translations
// folder. The extension is tested first (the search asks this of every
// candidate chunk).
func isTranslationCatalog(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".po", ".pot", ".xlf", ".xliff", ".arb", ".strings", ".ftl":
		return true
	case ".resx", ".properties":
		if translationFileRE.MatchString(p) {
			return true
		}
	case ".json", ".yaml", ".yml", ".toml", ".ini", ".xml", ".js", ".ts":
		// The data formats translation folders hold (i18next's
		// locales/en.json, Rails' config/locales/de.yml).
	default:
		return false
	}
	for _, d := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if translationDirs[d] {
			return true
		}
	}
	return false
}

// filePrior is the prior factor of a chunk's file for a query, and why.
// Test code is a test file's, or a chunk the chunker marked as test code
// in a file of other code (Meta "test": Rust's #[cfg(test)] modules). CI
// pipelines get the test prior too, unless the query asks about CI.
// Translation catalogs (one copy of the interface's text per language)
// get the boilerplate prior, unless the query asks about translations or
// text, or is a pasted message (message: what a user saw may be written
// there).
func filePrior(c core.Chunk, queryWords map[string]bool, message bool, p Params) (float64, string) {
	if c.FilePath == "" || strings.HasPrefix(string(c.Corpus), "CONVO_") {
		return 1, ""
	}
	base := path.Base(c.FilePath)
	named := false
	for _, w := range codetok.Words(base) {
		if queryWords[w] && len(w) > 2 {
			named = true
		}
	}
	dir := strings.ToLower(path.Dir(c.FilePath))
	switch {
	case (boilerplateNameRE.MatchString(base) || toolConfigRE.MatchString(base) ||
		strings.Contains(dir, ".github/issue_template")) && !named:
		return p.BoilerplatePrior, "repository boilerplate or tool configuration"
	case isTranslationCatalog(c.FilePath) && !named:
		if asksTranslations(queryWords, message) {
			return 1, ""
		}
		return p.BoilerplatePrior, "translation catalog"
	case isCIConfig(c.FilePath):
		for w := range queryWords {
			if ciWords[w] || testWords[w] {
				return 1, ""
			}
		}
		return p.TestPrior, "CI pipeline"
	case core.IsTestPath(c.FilePath) || importsTestFramework(c.Imports) || c.Meta["test"] == "true":
		for w := range queryWords {
			if testWords[w] {
				return 1, ""
			}
		}
		return p.TestPrior, "test code"
	}
	return 1, ""
}

// importsTestFramework reports whether a file's imports name a test or
// load-test framework.
func importsTestFramework(imports []string) bool {
	for _, im := range imports {
		if testImports[im] || testImports[strings.SplitN(im, ".", 2)[0]] {
			return true
		}
	}
	return false
}

// asksTranslations reports whether a query asks about translations or
// the text a user sees, or is a pasted message: translation catalogs may
// then be the answer.
func asksTranslations(queryWords map[string]bool, message bool) bool {
	if message {
		return true
	}
	for w := range queryWords {
		if i18nWords[w] {
			return true
		}
	}
	return false
}

// maxCatalogGlobs caps the folders a flooded query leaves out.
const maxCatalogGlobs = 8

// localeSegmentRE is a locale code as a folder or file name: de, pt_BR,
// zh-Hans, sr_Latn.
var localeSegmentRE = lazyre.New(`^[a-z]{2,3}([_-][A-Za-z0-9]{2,4})*$`)

// catalogFlood returns path globs for the translation catalogs that hold
// half or more of a query's best depth candidates, when the query does
// not ask about translations or text; nil otherwise. The search asks
// again without them (Filter.NotPath): a catalog's copies, one per
// language, otherwise fill every list before the code. message says the
// query as written reads as a pasted message (messageSigns).
func catalogFlood(fused []core.Hit, depth int, query string, message bool) []string {
	if asksTranslations(set(codetok.Words(query)), message) {
		return nil
	}
	n := min(depth, len(fused))
	var globs []string
	seen := map[string]bool{}
	count := 0
	for _, h := range fused[:n] {
		if !isTranslationCatalog(h.Chunk.FilePath) {
			continue
		}
		count++
		if g := catalogGlob(h.Chunk.FilePath); g != "" && !seen[g] && len(globs) < maxCatalogGlobs {
			seen[g] = true
			globs = append(globs, g)
		}
	}
	if n == 0 || count*2 < n {
		return nil
	}
	return globs
}

// catalogGlob is the glob of a catalog's copies in every language: the
// locale folders below the translations folder and the file name as
// wildcards (web/locales/de/common.json: web/locales/*/*.json,
// shop/locale/fr/LC_MESSAGES/django.po: shop/locale/*/LC_MESSAGES/*.po);
// "" for a path with glob characters.
func catalogGlob(p string) string {
	if strings.ContainsAny(p, "*?[]") {
		return ""
	}
	segs := strings.Split(path.Dir(p), "/")
	if path.Dir(p) == "." {
		segs = nil
	}
	below := false
	for i, s := range segs {
		switch {
		case translationDirs[strings.ToLower(s)]:
			below = true
		case below && localeSegmentRE.MatchString(s):
			segs[i] = "*"
		}
	}
	return strings.TrimPrefix(strings.Join(append(segs, "*"+path.Ext(p)), "/"), "/")
}
