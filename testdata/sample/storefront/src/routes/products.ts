import { Router } from "express";
import { getProduct, listProducts } from "../clients/catalog";

export const productsRouter = Router();

productsRouter.get("/", async (req, res, next) => {
  try {
    res.json(await listProducts(Number(req.query.page ?? 0)));
  } catch (err) {
    next(err);
  }
});

productsRouter.get("/:id", async (req, res, next) => {
  try {
    res.json(await getProduct(req.params.id));
  } catch (err) {
    next(err);
  }
});
