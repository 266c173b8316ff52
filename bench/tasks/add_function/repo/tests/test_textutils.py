import unittest

from textutils import slugify, truncate


class TextutilsTest(unittest.TestCase):
    def test_truncate(self):
        self.assertEqual(truncate("abcdef", 4), "abc…")

    def test_slugify_simple(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_slugify_punctuation(self):
        self.assertEqual(slugify("  C'est la vie!  "), "c-est-la-vie")


if __name__ == "__main__":
    unittest.main()
