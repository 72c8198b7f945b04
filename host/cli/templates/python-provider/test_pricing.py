import unittest

from pricing import price


class Pricing(unittest.TestCase):
    def test_every_started_kilogram_is_charged_whole_and_one_at_least(self):
        self.assertEqual(price(0.2, 6_000.0, 1_000.0), 7_000.0)
        self.assertEqual(price(2.0, 6_000.0, 1_000.0), 8_000.0)
        self.assertEqual(price(2.1, 6_000.0, 1_000.0), 9_000.0)


if __name__ == "__main__":
    unittest.main()
