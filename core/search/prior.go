package search

import (
	"path"
	"regexp"
	"strings"

	"coderag/core"
	"coderag/core/codetok"
)

// Prior factors of files that rarely answer a question about a system:
// tests answer questions about tests; repository boilerplate (issue and
// pull request templates, licence, code of conduct, security policy,
// contribution guide, changelog) and tool configuration (lint, format,
// editor, git attributes, TypeScript project files, lock files) answer
// questions about themselves. A query that names such a file, or asks
// about tests, lifts its prior. The factors are Params'.

var (
	boilerplateNameRE = regexp.MustCompile(`(?i)^(pull_request_template|issue_template|bug_report|feature_request|license|licence|copying|notice|code_of_conduct|security|contributing|changelog|changes|history|authors|codeowners|maintainers)(\.[a-z]+)?$`)
	toolConfigRE      = regexp.MustCompile(`(?i)^(\.gitattributes|\.gitignore|\.dockerignore|\.editorconfig|\.prettierrc.*|\.prettierignore|\.eslintrc.*|eslint\.config\.[cm]?[jt]s|\.stylelintrc.*|\.markdownlint.*|\.yamllint.*|\.golangci\.ya?ml|\.pre-commit-config\.yaml|tsconfig.*\.json|jsconfig\.json|\.nvmrc|\.npmrc|\.babelrc.*|babel\.config\.[cm]?js|.*\.lock|package-lock\.json|go\.sum|poetry\.lock|copilot-instructions\.md|renovate\.json|dependabot\.ya?ml|\.releaserc.*|checkstyle\.xml)$`)
	testWords         = set([]string{"test", "tests", "testing", "spec", "specs", "e2e", "unittest", "pytest", "jest", "cypress", "playwright", "locust", "k6"})
	// ciConfigRE are CI pipeline definitions (GitHub Actions, GitLab CI,
	// Azure Pipelines, Jenkins, CircleCI, Bitbucket, Travis): how code is
	// built, tested and released, not how the system behaves, and full of
	// step names ("Checkout", workflow_call) that match plain questions.
	ciConfigRE = regexp.MustCompile(`(?i)(^|/)(\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|azure-pipelines[^/]*\.ya?ml|jenkinsfile|\.circleci/config\.ya?ml|bitbucket-pipelines\.ya?ml|\.travis\.ya?ml)$`)
	// ciWords in a query ask about the pipelines themselves.
	ciWords = set([]string{"ci", "cd", "workflow", "workflows", "pipeline", "pipelines", "action", "actions", "github", "gitlab",
		"jenkins", "circleci", "build", "builds", "built", "release", "releases", "publish", "published", "job", "jobs", "runner", "lint",
		"deploy", "deploys", "deployed"})
	// testImports are test and load-test frameworks: a file that imports
	// one is test code wherever it lives (a Locust locustfile, a k6
	// script, a pytest helper).
	testImports = set([]string{"locust", "k6", "k6/http", "pytest", "unittest", "@playwright/test", "cypress", "vitest", "@jest/globals"})
)

// filePrior is the prior factor of a chunk's file for a query, and why.
// Test code is a test file's, or a chunk the chunker marked as test code
// in a file of other code (Meta "test": Rust's #[cfg(test)] modules). CI
// pipelines get the test prior too, unless the query asks about CI.
func filePrior(c core.Chunk, queryWords map[string]bool, p Params) (float64, string) {
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
	case ciConfigRE.MatchString(c.FilePath):
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
