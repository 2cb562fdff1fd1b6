"""The catalog service: products, prices and stock for Acme Outfitters.

Called by the storefront (browsing) and by the cart service (pricing).
"""

from fastapi import APIRouter, FastAPI, HTTPException
from pydantic import BaseModel

from . import db

app = FastAPI(title="catalog")
router = APIRouter(prefix="/products", tags=["products"])


class Product(BaseModel):
    id: str
    name: str
    price_cents: int
    stock: int


class StockLevel(BaseModel):
    product_id: str
    stock: int
    in_stock: bool


@app.on_event("startup")
def open_pool() -> None:
    db.pool.open()


@router.get("", response_model=list[Product])
def list_products(limit: int = 50, offset: int = 0) -> list[Product]:
    """List products by name, 50 per page."""
    return [Product(**p) for p in db.list_products(limit, offset)]


@router.get("/{product_id}", response_model=Product)
def get_product(product_id: str) -> Product:
    """One product with its current price."""
    product = db.get_product(product_id)
    if product is None:
        raise HTTPException(status_code=404, detail=f"product {product_id} not found")
    return Product(**product)


@router.get("/{product_id}/stock", response_model=StockLevel)
def get_stock(product_id: str) -> StockLevel:
    """How many items of a product are left."""
    product = db.get_product(product_id)
    if product is None:
        raise HTTPException(status_code=404, detail=f"product {product_id} not found")
    return StockLevel(product_id=product_id, stock=product["stock"], in_stock=product["stock"] > 0)


@app.get("/healthz")
def healthz() -> dict:
    return {"status": "ok"}


app.include_router(router)
