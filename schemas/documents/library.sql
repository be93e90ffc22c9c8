-- A library, the source database of the declared-documents tests: text, uuid, integer and
-- composite keys; a continent four levels below a book (book → author through book_author → city →
-- country → continent); a foreign key the definition names itself (review.book_isbn has no
-- constraint, so reviews can outlive their book, as rows of another service can).
CREATE TABLE continent (id text PRIMARY KEY, name text NOT NULL);
CREATE TABLE country (
  code text PRIMARY KEY,
  name text NOT NULL,
  continent_id text REFERENCES continent (id) ON DELETE SET NULL);
CREATE TABLE city (
  id text PRIMARY KEY,
  name text NOT NULL,
  country_code text REFERENCES country (code) ON DELETE SET NULL);
CREATE TABLE author (
  id text PRIMARY KEY,
  name text NOT NULL,
  city_id text REFERENCES city (id) ON DELETE SET NULL);
CREATE TABLE publisher (id text PRIMARY KEY, name text NOT NULL);
CREATE TABLE book (
  isbn text PRIMARY KEY,
  title text NOT NULL,
  description text,
  price numeric(10, 2),
  published date,
  tags jsonb,
  publisher_id text REFERENCES publisher (id) ON DELETE SET NULL);
CREATE TABLE review (id uuid PRIMARY KEY, book_isbn text, stars integer NOT NULL, body text);
CREATE TABLE book_author (
  book_isbn text REFERENCES book (isbn) ON DELETE CASCADE,
  author_id text REFERENCES author (id) ON DELETE CASCADE,
  PRIMARY KEY (book_isbn, author_id));
CREATE TABLE subject (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE book_subject (
  book_isbn text REFERENCES book (isbn) ON DELETE CASCADE,
  subject_id integer REFERENCES subject (id) ON DELETE CASCADE,
  PRIMARY KEY (book_isbn, subject_id));
