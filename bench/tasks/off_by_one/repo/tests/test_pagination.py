import unittest

from pagination import page_count, paginate


class PaginateTest(unittest.TestCase):
    def test_first_page(self):
        self.assertEqual(paginate(list(range(10)), 1, 4), [0, 1, 2, 3])

    def test_last_page_is_short(self):
        self.assertEqual(paginate(list(range(10)), 3, 4), [8, 9])

    def test_page_count(self):
        self.assertEqual(page_count(10, 4), 3)


if __name__ == "__main__":
    unittest.main()
