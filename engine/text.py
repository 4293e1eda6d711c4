"""Free text as bag-of-words counts, for multinomial and Bernoulli Naive Bayes.

A review such as "The sushi & everything else was awesome!" shows the rule: lower-case
the text, keep runs of letters, digits and apostrophes as words, and count each word.
The order of words is forgotten, which is the naive assumption applied to text.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

TOKEN_PATTERN = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*")

#: A column is free text when at least this share of its values has MIN_WORDS words.
TEXT_SHARE = 0.5
MIN_WORDS = 3


def tokenize(text) -> list[str]:
    """Lower-cased words of ``text``; missing text has no words.

    >>> tokenize("The sushi & everything else was awesome!")
    ['the', 'sushi', 'everything', 'else', 'was', 'awesome']
    """
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return []
    return TOKEN_PATTERN.findall(str(text).lower())


def is_text_column(column: pd.Series) -> bool:
    """True when a non-numeric column holds free text rather than category labels.

    The rule: at least half of the non-missing values contain three or more words.
    Category labels ("Full", "0-10", "$$") rarely do; sentences almost always do.

    >>> is_text_column(pd.Series(["great food and staff", "slow and cold", "ok"]))
    True
    >>> is_text_column(pd.Series(["Some", "Full", "None"]))
    False
    """
    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return False
    values = column.dropna()
    if values.empty:
        return False
    words = values.astype(str).str.count(r"\S+")
    return bool((words >= MIN_WORDS).mean() >= TEXT_SHARE)


class Vocabulary:
    """The words seen in training, and documents as count vectors over them.

    Examples
    --------
    >>> vocab = Vocabulary().fit(["good food", "bad food, bad service"])
    >>> vocab.words_.tolist()
    ['bad', 'food', 'good', 'service']
    >>> vocab.transform(["food food good", None]).tolist()
    [[0, 2, 1, 0], [0, 0, 0, 0]]
    """

    def fit(self, documents) -> Vocabulary:
        words = sorted({w for doc in documents for w in tokenize(doc)})
        self.words_ = np.array(words, dtype=object)
        self._index = {w: i for i, w in enumerate(words)}
        return self

    def transform(self, documents) -> np.ndarray:
        """Counts, shape (n_documents, n_words); words not in the vocabulary are dropped."""
        documents = list(documents)
        rows, cols = [], []
        for i, doc in enumerate(documents):
            for word in tokenize(doc):
                j = self._index.get(word)
                if j is not None:
                    rows.append(i)
                    cols.append(j)
        counts = np.zeros((len(documents), len(self.words_)), dtype=np.int64)
        np.add.at(counts, (np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp)), 1)
        return counts
