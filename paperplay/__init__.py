"""paperplay: seeded paper game kits and a rules referee for Streams, Streetcar and Sequence Numbers."""

__version__ = "0.1.0"
