"""Pricing rules for the catalog service.

Prices are computed from a base price and a list of adjustments.
"""

from __future__ import annotations

import dataclasses
import decimal
from typing import Iterable

from .db import connection

TAX_RATE = decimal.Decimal("0.2")
CURRENCY = "USD"


@dataclasses.dataclass
class Adjustment:
    """A change to a base price."""

    name: str
    percent: decimal.Decimal


def round_cents(value: decimal.Decimal) -> int:
    return int(value.quantize(decimal.Decimal("1")))


class PriceBook:
    """Loads prices and applies adjustments.

    The class is long on purpose so that it is chunked member by member.
    """

    def __init__(self, region: str, adjustments: Iterable[Adjustment] = ()):
        self.region = region
        self.adjustments = list(adjustments)
        self._cache: dict[str, int] = {}

    def price_for_rule_1(self, product_id: str, quantity: int = 1) -> int:
        """Price of quantity items of product_id under rule 1."""
        if product_id in self._cache:
            base = self._cache[product_id]
        else:
            with connection() as conn:
                row = conn.execute(
                    "SELECT price_cents FROM products WHERE id = %s AND region = %s",
                    (product_id, self.region),
                ).fetchone()
            if row is None:
                raise KeyError(f"no price for {product_id} in {self.region}")
            base = row[0]
            self._cache[product_id] = base
        total = decimal.Decimal(base * quantity)
        for adjustment in self.adjustments:
            total += total * adjustment.percent / 100
        return round_cents(total * (1 + TAX_RATE))

    def price_for_rule_2(self, product_id: str, quantity: int = 1) -> int:
        """Price of quantity items of product_id under rule 2."""
        if product_id in self._cache:
            base = self._cache[product_id]
        else:
            with connection() as conn:
                row = conn.execute(
                    "SELECT price_cents FROM products WHERE id = %s AND region = %s",
                    (product_id, self.region),
                ).fetchone()
            if row is None:
                raise KeyError(f"no price for {product_id} in {self.region}")
            base = row[0]
            self._cache[product_id] = base
        total = decimal.Decimal(base * quantity)
        for adjustment in self.adjustments:
            total += total * adjustment.percent / 100
        return round_cents(total * (1 + TAX_RATE))

    def price_for_rule_3(self, product_id: str, quantity: int = 1) -> int:
        """Price of quantity items of product_id under rule 3."""
        if product_id in self._cache:
            base = self._cache[product_id]
        else:
            with connection() as conn:
                row = conn.execute(
                    "SELECT price_cents FROM products WHERE id = %s AND region = %s",
                    (product_id, self.region),
                ).fetchone()
            if row is None:
                raise KeyError(f"no price for {product_id} in {self.region}")
            base = row[0]
            self._cache[product_id] = base
        total = decimal.Decimal(base * quantity)
        for adjustment in self.adjustments:
            total += total * adjustment.percent / 100
        return round_cents(total * (1 + TAX_RATE))

    def price_for_rule_4(self, product_id: str, quantity: int = 1) -> int:
        """Price of quantity items of product_id under rule 4."""
        if product_id in self._cache:
            base = self._cache[product_id]
        else:
            with connection() as conn:
                row = conn.execute(
                    "SELECT price_cents FROM products WHERE id = %s AND region = %s",
                    (product_id, self.region),
                ).fetchone()
            if row is None:
                raise KeyError(f"no price for {product_id} in {self.region}")
            base = row[0]
            self._cache[product_id] = base
        total = decimal.Decimal(base * quantity)
        for adjustment in self.adjustments:
            total += total * adjustment.percent / 100
        return round_cents(total * (1 + TAX_RATE))

    @property
    def size(self) -> int:
        return len(self._cache)


def apply_all(book: PriceBook, items: list[tuple[str, int]]) -> list[int]:
    return [book.price_for_rule_1(pid, qty) for pid, qty in items]


if __name__ == "__main__":
    print(apply_all(PriceBook("eu"), [("sku-1", 2)]))
