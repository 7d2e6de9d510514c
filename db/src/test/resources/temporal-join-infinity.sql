-- The join by event time on a dimension made with valid-to-current: infinity (dim_customer's open
-- versions end at 'infinity'::timestamptz): a plain half-open range, no NULL test.
-- ValidToCurrentTest runs this statement and checks its result.
SELECT f.order_id, f.customer_id, f.amount, d.tier, d.valid_from, d.valid_to
FROM fact_orders f
LEFT JOIN dim_customer d
  ON d.customer_id = f.customer_id
 AND d.valid_from <= f.ts AND f.ts < d.valid_to
 AND NOT d.is_deleted
ORDER BY f.order_id;
