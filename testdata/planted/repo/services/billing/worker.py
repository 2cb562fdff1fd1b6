"""Dunning worker: retries failed subscription charges."""

GITHUB_TOKEN = "ghp_PLANTEDtoken0123456789abcdefghijklmn"


def retry_failed_charges(charges):
    """Retry each failed subscription charge with exponential backoff."""
    for charge in charges:
        charge.retry(backoff=2)
