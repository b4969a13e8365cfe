"""One ARFF grammar: the three data readers (NumPy's for bare nominal data, pandas' C parser,
the general line-by-line reader) give the same frame on the same bytes, or the general reader's
error; values Weka reads differently are errors that name the line."""

import re

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pgm_models.datasets import arff
from pgm_models.datasets.arff import read_arff

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


def _write(tmp_path, text, name="t.arff", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _each_reader(text):
    """Every reader's answer on a file's data section: a frame, None (the reader leaves the
    file to the next one) or the error it raises."""
    header, data = text.split("@data\n", 1)
    attributes = read_arff_header(header)
    first = header.count("\n") + 2
    answers = {}
    fast = data.strip() and arff._plain_data(data)  # the fast readers' precondition in read_arff
    for name, read in [
        ("bare", lambda: arff._read_bare_nominal(data, attributes)),
        ("pandas", lambda: arff._read_plain(data, attributes, "t.arff")),
        (
            "lines",
            lambda: arff._read_data("%\n" + data, first - 1, attributes, "t.arff"),
        ),  # '%' forces the general reader
    ]:
        if name != "lines" and not fast:
            continue
        try:
            series = read()
            answers[name] = None if series is None else pd.concat(series, axis=1)
        except (ValueError, arff._NeedsLineNumbers) as error:
            answers[name] = error
    return answers


def read_arff_header(header):
    """The attributes of a header (parsed by read_arff itself, on the header and an empty data section)."""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.arff"
        path.write_text(header + "@data\n")
        return read_arff(path)[1]


def _assert_readers_agree(text):
    answers = _each_reader(text)
    exact = answers.pop("lines")
    for name, answer in answers.items():
        if answer is None or isinstance(answer, arff._NeedsLineNumbers):
            continue  # left to the general reader
        assert not isinstance(exact, Exception), f"{name} read a file the general reader rejects: {exact}"
        assert not isinstance(answer, Exception), f"{name} raised {answer!r} where the general reader gives a frame"
        pd.testing.assert_frame_equal(answer, exact)
    return exact


# Values as a writer quotes them: bare when it may be, else in single or double quotes with
# backslash escapes; and raw noise fields that are often not one value at all.
_TEXT = st.text(alphabet="ab ,{}'\"\\?%\t", min_size=0, max_size=5)


def _quote(value, mark):
    return mark + value.replace("\\", "\\\\").replace(mark, "\\" + mark).replace("\t", "\\t") + mark


def _is_bare(value):
    return value != "" and value != "?" and not re.search(r"[\s,{}'\"%\\]", value)


@st.composite
def _arff_files(draw):
    n_attributes = draw(st.integers(1, 3))
    kinds = draw(
        st.lists(st.sampled_from(["nominal", "numeric", "string"]), min_size=n_attributes, max_size=n_attributes)
    )
    lines = ["@relation r"]
    domains = []
    for j, kind in enumerate(kinds):
        if kind == "nominal":
            values = draw(st.lists(_TEXT.filter(lambda v: v != "?"), min_size=1, max_size=4, unique=True))
            domains.append(values)
            lines.append(f"@attribute a{j} {{{','.join(v if _is_bare(v) else _quote(v, chr(39)) for v in values)}}}")
        else:
            domains.append(None)
            lines.append(f"@attribute a{j} {kind}")
    lines.append("@data")
    for _ in range(draw(st.integers(1, 6))):
        fields = []
        for kind, domain in zip(kinds, domains):
            choice = draw(st.integers(0, 9))
            if choice == 0:
                fields.append("?")
            elif choice == 1:
                fields.append(draw(_TEXT))  # raw noise
            else:
                value = (
                    draw(st.sampled_from(domain))
                    if kind == "nominal"
                    else str(draw(st.integers(-5, 5)))
                    if kind == "numeric"
                    else draw(_TEXT)
                )
                quoting = draw(st.sampled_from(["bare", "'", '"']))
                field = (
                    value
                    if quoting == "bare" and _is_bare(value)
                    else _quote(value, "'" if quoting == "bare" else quoting)
                )
                fields.append(draw(st.sampled_from(["", " ", "\t"])) + field + draw(st.sampled_from(["", " "])))
        lines.append(",".join(fields))
    return "\n".join(lines) + "\n", kinds, domains


@SETTINGS
@given(_arff_files())
def test_every_reader_reads_the_same_bytes_the_same_way(tmp_path, drawn):
    text, kinds, domains = drawn
    try:
        header_ok = read_arff_header(text.split("@data\n", 1)[0])
    except ValueError:
        return  # a header the grammar rejects (a repeated declared value)
    assert len(header_ok) == len(kinds)
    exact = _assert_readers_agree(text)
    whole = None
    try:
        whole = read_arff(_write(tmp_path, text))[2]
    except ValueError as error:
        assert isinstance(exact, ValueError) and str(exact).split(": ", 1)[1] == str(error).split(": ", 1)[1]
    if whole is not None:
        pd.testing.assert_frame_equal(whole, exact)


@SETTINGS
@given(
    st.lists(st.lists(st.text(alphabet="xy ,{}'\"\\?\t%é", max_size=4), min_size=2, max_size=2), min_size=1, max_size=5)
)
def test_well_quoted_values_read_back_as_written(tmp_path, rows):
    """Any string, quoted as Weka's writer quotes it, reads back unchanged, by every reader."""
    lines = ["@relation r", "@attribute s string", "@attribute t string", "@data"]
    lines += [",".join(_quote(v, "'") for v in row) for row in rows]
    text = "\n".join(lines) + "\n"
    exact = _assert_readers_agree(text)
    assert exact.to_numpy().tolist() == rows


@pytest.mark.parametrize("data", ["' a ',1\nx,2\n", "' a ' , 1\nx,2\n", '" a ",1\nx,2\n'])
def test_quoted_values_keep_their_edge_spaces_in_every_reader(tmp_path, data):
    text = "@relation r\n@attribute c {' a ',x}\n@attribute n numeric\n@data\n" + data
    assert _assert_readers_agree(text)["c"].tolist() == [" a ", "x"]
    assert read_arff(_write(tmp_path, text))[2]["c"].tolist() == [" a ", "x"]
    assert read_arff(_write(tmp_path, text + "% comment\n"))[2]["c"].tolist() == [" a ", "x"]


@pytest.mark.parametrize(
    "text, message",
    [
        # Weka's tokenizer reads 'a''b' as two values a, b: ambiguous, so an error naming the line
        (
            "@relation r\n@attribute s string\n@attribute n numeric\n@data\n'a''b',1\n",
            r"t.arff:5: cannot read a value at \"'a''b',1\"",
        ),
        ("@relation r\n@attribute c {'a''b',x}\n@data\nx\n", r"t.arff:2: cannot read a value at \"'a''b',x\""),
        # Weka reads {0<tab>y} as two values 0 and y
        ("@relation r\n@attribute a {0\ty}\n@data\ny\n", r"t.arff:2: cannot read a value at '0\\ty'"),
        ("@relation r\n@attribute s string\n@data\na b\n", r"t.arff:4: cannot read a value at 'a b'"),
        (
            "@relation r\n@attribute a {n,y}\n@attribute c {z,w}\n@data\n{-1 n, 0 y}\n",
            r"t.arff:5: sparse index '-1' is not an attribute index 0..1",
        ),
        (
            "@relation r\n@attribute a {n,y}\n@attribute c {z,w}\n@data\n{0 y}\n{5 z}\n",
            r"t.arff:6: sparse index '5' is not an attribute index 0..1",
        ),
        (
            "@relation r\n@attribute a {n,y}\n@attribute c {z,w}\n@data\n{1 z, 0 y}\n",
            r"t.arff:5: sparse indices must increase, got 0 after 1",
        ),
        (
            "@relation r\n@attribute a {n,y}\n@attribute a {z,w}\n@data\n",
            r"t.arff:3: attribute name 'a' is declared twice",
        ),
        (
            "@relation r\n@attribute c {n,y}\n@attribute c {z,w}\n@data\ny,z\n",
            r"t.arff:3: attribute name 'c' is declared twice",
        ),
    ],
)
def test_what_weka_reads_differently_is_an_error_naming_the_line(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_arff(_write(tmp_path, text))


def test_sparse_quoted_values_may_hold_commas_and_braces(tmp_path):
    text = "@relation r\n@attribute s string\n@attribute b {x,y}\n@data\n{0 'p,q', 1 y}\n{0 '{z}'}\n{}\n"
    frame = read_arff(_write(tmp_path, text))[2]
    assert frame["s"].tolist() == ["p,q", "{z}", "0"] and frame["b"].tolist() == ["y", "x", "x"]


def test_byte_order_mark_tab_after_attribute_and_empty_value_list(tmp_path):
    text = "\ufeff@relation t\n@attribute\ta\t{}\n@attribute\tb {x,y}\n@data\n?,x\n?,y\n"
    relation, attributes, frame = read_arff(_write(tmp_path, text))
    assert relation == "t" and [a.name for a in attributes] == ["a", "b"] and attributes[0].values == ()
    assert frame["a"].isna().all() and list(frame["a"].cat.categories) == [] and frame["b"].tolist() == ["x", "y"]


def test_latin1_bytes_are_an_error_naming_the_file_and_line(tmp_path):
    path = _write(tmp_path, "@relation t\n@attribute a {café,x}\n@data\nx\n", encoding="latin-1")
    with pytest.raises(ValueError, match=r"t.arff:2: not UTF-8 \(byte 0xe9\).*iconv -f latin1 -t utf-8"):
        read_arff(path)


def test_a_nominal_column_missing_in_every_row(tmp_path):
    """Item 8: '?' in every row once raised IndexError in the general reader (a comment line sends the file there)."""
    for tail in ("", "% a comment\n"):
        frame = read_arff(
            _write(tmp_path, "@relation t\n@attribute a {x,y}\n@attribute b {x,y}\n@data\n?,x\n?,y\n" + tail)
        )[2]
        assert frame["a"].isna().all() and list(frame["a"].cat.categories) == ["x", "y"]


def test_a_long_run_of_spaces_reads_in_linear_work():
    """The field pattern once backtracked quadratically in a run of spaces (16k spaces: 8 s);
    with possessive quantifiers each character is looked at a bounded number of times. This
    asserts the result: quadratic work on 10^6 spaces would not finish."""
    spaces = " " * 1_000_000
    assert arff._split_fields("a" + spaces + "," + spaces + "'b'" + spaces, "t") == ["a", "b"]
    with pytest.raises(ValueError, match="cannot read a value at 'a"):
        arff._split_fields("a" + spaces + "b", "t")
    assert list(arff._sparse_pairs("{0" + spaces + "x" + spaces + "}", 1, "t")) == [(0, "x")]


@pytest.mark.parametrize(
    "text, message",
    [
        # a declared value with a quote in it must be quoted in the data too (the bare reader once matched it raw)
        ("@relation r\n@attribute a {'x\"y',z}\n@data\nx\"y\nz\n", "t.arff:4: cannot read a value at 'x\"y'"),
        # no attribute declares a value: the bare reader once failed on max() of nothing
        (
            "@relation r\n@attribute a {}\n@data\n?\n?\nx\n",
            "t.arff:6: attribute 'a' has undeclared value 'x' \\(declared: \\[\\]\\)",
        ),
    ],
)
def test_the_bare_nominal_reader_keeps_to_the_grammar(tmp_path, text, message):
    with pytest.raises(ValueError, match=message):
        read_arff(_write(tmp_path, text))
    assert _each_reader(text)["bare"] is None


def test_a_declared_empty_value_does_not_let_an_empty_field_through_the_bare_reader():
    """Found by the property test above: ``?,`` has an empty second field, which the grammar
    rejects even when '' is a declared (quoted) value; the bare reader had matched it."""
    text = "@relation r\n@attribute a0 {''}\n@attribute a1 {''}\n@data\n?,\n"
    assert isinstance(_assert_readers_agree(text), ValueError)
