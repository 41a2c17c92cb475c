// Package notebook turns a Jupyter notebook (.ipynb) into one Python program and maps the
// program's positions back to the notebook.
//
// The code cells, in order, form the program, as the kernel runs them top to bottom.
// IPython syntax that is not Python is blanked out line for line, so line numbers in the
// program match the cells:
//
//   - a cell magic (`%%bash`, `%%writefile`, ... on the cell's first line) blanks the whole
//     cell, except for magics whose body is Python that runs (`%%time`, `%%timeit`,
//     `%%capture`, `%%prun`, `%%debug`, `%%memit`, `%%mprun`): only their first line goes;
//   - line magics (`%time f()`, `x = %env`), shell escapes (`!pip install`, `files = !ls`)
//     and help (`obj?`, `??obj`), with any backslash-continued lines after them;
//   - a cell that ends inside a string, a bracket or a backslash continuation (a
//     SyntaxError in Jupyter too, which runs cells one by one) is blanked, with a warning,
//     so it cannot swallow the cells after it.
//
// A blanked line becomes empty, or `pass` at the same indentation when it is indented, so
// that a block whose only statement was a magic stays valid.
//
// Positions: cell numbers count every cell of the notebook from 1, markdown included, as
// the notebook shows them (and as ruff reports `cell 3`). Lines within a cell count from 1.
// JSON positions are 1-based lines and columns (columns in Unicode code points, like every
// column cachelint reports) in the .ipynb file itself, pointing at the character of the
// JSON string literal that holds the source character in question; see Notebook.Locate and
// Notebook.JSONPos.
//
// Both nbformat 4 (`cells`, `source`) and nbformat 3 (`worksheets[].cells`, `input`) are
// read; `source` may be a string or a list of strings. Missing fields mean empty; a field
// of the wrong type, or malformed JSON, is an error that names the line and column.
package notebook
