import unittest

from textstats import top_words, word_count


class WordCountTest(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(word_count("the quick brown fox"), 4)

    def test_punctuation_and_newlines(self):
        self.assertEqual(word_count("Hello, world!\nHello again."), 4)

    def test_empty(self):
        self.assertEqual(word_count(""), 0)


class TopWordsTest(unittest.TestCase):
    def test_most_frequent_first(self):
        self.assertEqual(top_words("b a b c a b", 2), [("b", 3), ("a", 2)])

    def test_case_insensitive(self):
        self.assertEqual(top_words("Go go GO stop", 1), [("go", 3)])


if __name__ == "__main__":
    unittest.main()
