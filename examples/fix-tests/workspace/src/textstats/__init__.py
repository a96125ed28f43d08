"""textstats: word statistics for plain text."""

from textstats.core import top_words, word_count

__all__ = ["top_words", "word_count"]
