"""Hidden tests of the fix-tests example, copied in only at verify time."""

import unittest

from textstats import top_words, word_count


class HiddenWordCountTest(unittest.TestCase):
    def test_whitespace_runs(self):
        self.assertEqual(word_count("  one\t two\n\nthree  "), 3)

    def test_apostrophes(self):
        self.assertEqual(word_count("Don't stop: it's fine"), 4)

    def test_only_punctuation(self):
        self.assertEqual(word_count("... --- !!!"), 0)


class HiddenTopWordsTest(unittest.TestCase):
    def test_ties_alphabetical(self):
        self.assertEqual(top_words("pear apple fig apple pear fig kiwi", 3),
                         [("apple", 2), ("fig", 2), ("pear", 2)])

    def test_n_larger_than_vocabulary(self):
        self.assertEqual(top_words("a b a", 10), [("a", 2), ("b", 1)])

    def test_zero(self):
        self.assertEqual(top_words("a b a", 0), [])

    def test_punctuation_ignored(self):
        self.assertEqual(top_words("Stop. stop! STOP? go", 2), [("stop", 3), ("go", 1)])


if __name__ == "__main__":
    unittest.main()
