-- A store, the source database of the documents-at-scale benchmark (orders.json declares one
-- document per order): customers → orders → order lines → products → brands, and products → a
-- category three levels deep. The foreign keys are declared after a bulk load (NOT VALID: the rows
-- were generated consistent), so they are listed apart.
CREATE TABLE brand (id bigint PRIMARY KEY, name text NOT NULL);
CREATE TABLE category (id bigint PRIMARY KEY, name text NOT NULL, parent_id bigint);
CREATE TABLE product (
  id bigint PRIMARY KEY,
  sku text NOT NULL,
  name text NOT NULL,
  brand_id bigint,
  category_id bigint);
CREATE TABLE customer (id bigint PRIMARY KEY, name text NOT NULL, email text NOT NULL, city text);
CREATE TABLE orders (
  id bigint PRIMARY KEY,
  customer_id bigint,
  status text NOT NULL,
  placed_on date NOT NULL,
  total numeric(12, 2) NOT NULL,
  note text,
  revision bigint NOT NULL DEFAULT 0);
CREATE TABLE order_line (
  id bigint PRIMARY KEY,
  order_id bigint NOT NULL,
  product_id bigint,
  quantity integer NOT NULL,
  unit_price numeric(10, 2) NOT NULL);
