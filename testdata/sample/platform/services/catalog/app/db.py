"""Access to the products and stock tables of the shared shopdb database."""

import os
from contextlib import contextmanager

from psycopg_pool import ConnectionPool

DATABASE_URL = os.environ.get("DATABASE_URL", "postgresql://catalog@postgres:5432/shopdb")

pool = ConnectionPool(DATABASE_URL, min_size=1, max_size=10, open=False)


@contextmanager
def connection():
    """Yield a pooled connection to shopdb."""
    with pool.connection() as conn:
        yield conn


def list_products(limit: int = 50, offset: int = 0) -> list[dict]:
    with connection() as conn:
        rows = conn.execute(
            "SELECT id, name, price_cents, stock FROM products ORDER BY name LIMIT %s OFFSET %s",
            (limit, offset),
        ).fetchall()
    return [dict(id=r[0], name=r[1], price_cents=r[2], stock=r[3]) for r in rows]


def get_product(product_id: str) -> dict | None:
    with connection() as conn:
        row = conn.execute(
            "SELECT id, name, price_cents, stock FROM products WHERE id = %s", (product_id,)
        ).fetchone()
    if row is None:
        return None
    return dict(id=row[0], name=row[1], price_cents=row[2], stock=row[3])


def decrement_stock(product_id: str, quantity: int) -> None:
    """Take quantity items out of stock; stock never goes below zero."""
    with connection() as conn:
        conn.execute(
            "UPDATE products SET stock = GREATEST(stock - %s, 0) WHERE id = %s",
            (quantity, product_id),
        )
