-- PGSync's examples/book/schema.py (SQLAlchemy) as SQL, with a deterministic fixture.
CREATE TABLE continent (id serial PRIMARY KEY, name varchar(256) NOT NULL UNIQUE);
CREATE TABLE country (
  id serial PRIMARY KEY, name varchar(256) NOT NULL,
  continent_id integer REFERENCES continent (id) ON DELETE CASCADE, UNIQUE (name, continent_id));
CREATE TABLE city (
  id serial PRIMARY KEY, name varchar(256) NOT NULL,
  country_id integer REFERENCES country (id) ON DELETE CASCADE, UNIQUE (name, country_id));
CREATE TABLE publisher (
  id serial PRIMARY KEY, name varchar(256) NOT NULL UNIQUE, is_active boolean DEFAULT false);
CREATE TABLE author (
  id serial PRIMARY KEY, name varchar(256) NOT NULL UNIQUE, date_of_birth timestamp,
  city_id integer REFERENCES city (id) ON DELETE CASCADE);
CREATE TABLE shelf (id serial PRIMARY KEY, shelf varchar(256) NOT NULL UNIQUE);
CREATE TABLE subject (id serial PRIMARY KEY, name varchar(256) NOT NULL UNIQUE);
CREATE TABLE language (id serial PRIMARY KEY, code varchar(256) NOT NULL UNIQUE);
CREATE TABLE book (
  id serial PRIMARY KEY, isbn varchar(256) NOT NULL UNIQUE, title varchar(256) NOT NULL,
  description varchar(256), copyright varchar(256), tags json, doc json,
  publisher_id integer REFERENCES publisher (id) ON DELETE CASCADE, publish_date timestamp);
CREATE TABLE rating (
  id serial PRIMARY KEY, book_isbn varchar(256) UNIQUE REFERENCES book (isbn) ON DELETE CASCADE,
  value double precision);
CREATE TABLE book_author (
  id serial PRIMARY KEY, book_isbn varchar(256) REFERENCES book (isbn) ON DELETE CASCADE,
  author_id integer REFERENCES author (id) ON DELETE CASCADE, UNIQUE (book_isbn, author_id));
CREATE TABLE book_subject (
  id serial PRIMARY KEY, book_isbn varchar(256) REFERENCES book (isbn) ON DELETE CASCADE,
  subject_id integer REFERENCES subject (id) ON DELETE CASCADE, UNIQUE (book_isbn, subject_id));
CREATE TABLE book_language (
  id serial PRIMARY KEY, book_isbn varchar(256) REFERENCES book (isbn) ON DELETE CASCADE,
  language_id integer REFERENCES language (id) ON DELETE CASCADE, UNIQUE (book_isbn, language_id));
CREATE TABLE bookshelf (
  id serial PRIMARY KEY, book_isbn varchar(256) REFERENCES book (isbn) ON DELETE CASCADE,
  shelf_id integer REFERENCES shelf (id) ON DELETE CASCADE, UNIQUE (book_isbn, shelf_id));

INSERT INTO continent (id, name) VALUES (1, 'Europe'), (2, 'Asia');
INSERT INTO country (id, name, continent_id) VALUES (1, 'United Kingdom', 1), (2, 'India', 2);
INSERT INTO city (id, name, country_id) VALUES (1, 'London', 1), (2, 'Motihari', 2);
INSERT INTO publisher (id, name, is_active) VALUES (1, 'Secker-Warburg', true), (2, 'Chatto', false);
INSERT INTO author (id, name, date_of_birth, city_id)
  VALUES (1, 'George Orwell', '1903-06-25 00:00:00', 2), (2, 'Aldous Huxley', '1894-07-26 08:30:00', 1);
INSERT INTO subject (id, name) VALUES (1, 'Dystopia'), (2, 'Politics');
INSERT INTO language (id, code) VALUES (1, 'en-GB'), (2, 'fr-FR');
INSERT INTO book (id, isbn, title, description, tags, doc, publisher_id, publish_date) VALUES
  (1, '001', 'Nineteen Eighty-Four', 'Big Brother', '["classic", "novel"]',
   '{"firstname": "George", "coordinates": [51.5, -0.1], "a": {"b": {"c": [0, 1, 2, 3, "four"]}},
     "x": [{"y": 1}, {"z": "zed"}]}', 1, '1949-06-08 00:00:00'),
  (2, '1002', 'Brave New World', NULL, NULL, '{"firstname": "Aldous"}', 2, NULL);
INSERT INTO rating (id, book_isbn, value) VALUES (1, '001', 4.5);
INSERT INTO book_author (id, book_isbn, author_id) VALUES (1, '001', 1), (2, '1002', 2);
INSERT INTO book_subject (id, book_isbn, subject_id) VALUES (1, '001', 1), (2, '001', 2), (3, '1002', 1);
INSERT INTO book_language (id, book_isbn, language_id) VALUES (1, '001', 1), (2, '001', 2), (3, '1002', 1);
