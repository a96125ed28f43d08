"""Word counting and frequency tables."""

import re

_WORD = re.compile(r"[a-z']+")


def tokens(text):
    """Return the lower-case words of text, in order."""
    return text.lower().split(" ")


def word_count(text):
    """Return the number of words in text."""
    return len(tokens(text))


def top_words(text, n):
    """Return the n most frequent words as (word, count) pairs.

    Most frequent first; ties are broken alphabetically.
    """
    raise NotImplementedError
