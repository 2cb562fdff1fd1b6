const express = require('express');
const { requireAuth } = require('./auth');
const orders = require('./controllers/orders');

const router = express.Router();

router.get('/orders/:id', requireAuth, orders.getOrder);
router.post('/orders', requireAuth, validate(orderSchema), orders.createOrder);
router.delete('/orders/:id', async (req, res) => {
  await orders.remove(req.params.id);
  res.sendStatus(204);
});
router.get('/healthz', (req, res) => res.send('ok'));

module.exports = router;
