import unittest

from counting import calls_after


class Counting(unittest.TestCase):
    def test_calls_count_on_from_what_the_store_holds(self):
        self.assertEqual(calls_after(None), 1)
        self.assertEqual(calls_after(b"41"), 42)
        self.assertEqual(calls_after(b"not a number"), 1)


if __name__ == "__main__":
    unittest.main()
