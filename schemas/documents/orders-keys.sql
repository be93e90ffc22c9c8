-- The store's foreign keys (orders.sql), declared once its rows are in.
ALTER TABLE category ADD FOREIGN KEY (parent_id) REFERENCES category (id) NOT VALID;
ALTER TABLE product ADD FOREIGN KEY (brand_id) REFERENCES brand (id) NOT VALID;
ALTER TABLE product ADD FOREIGN KEY (category_id) REFERENCES category (id) NOT VALID;
ALTER TABLE orders ADD FOREIGN KEY (customer_id) REFERENCES customer (id) NOT VALID;
ALTER TABLE order_line ADD FOREIGN KEY (order_id) REFERENCES orders (id) NOT VALID;
ALTER TABLE order_line ADD FOREIGN KEY (product_id) REFERENCES product (id) NOT VALID;
CREATE INDEX ON order_line (order_id);
CREATE INDEX ON order_line (product_id);
CREATE INDEX ON product (brand_id);
