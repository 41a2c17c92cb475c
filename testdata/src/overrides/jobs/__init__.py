"""A package whose subpackage re-exports its trainer classes."""
