"""Naive Bayes page: priors, likelihoods, smoothing and the evidence behind each prediction."""
import streamlit as st

from engine.data import DataError
from ui import data_controls, heading, questions, results, state, tables, url
from ui import nb_controls as nb
from ui.axes import axis_pair
from ui.markdown import literal
from ui.take_home import take_home
from viz import explain_figures as ef
from viz import nb_figures as nf

heading.show("Naive Bayes", "naive_bayes")
st.caption("Posterior = prior × likelihood / evidence, with the naive assumption that the "
           "features are independent given the class: P(c | x) ∝ P(c) ∏ⱼ P(xⱼ | c).")

dataset = state.current_dataset()
if dataset is None:
    state.stop()
data_controls.leak_notice(dataset)
if dataset.task != "classification":
    state.offer_classification_target(
        f"Naive Bayes predicts a class, and **{dataset.target}** is a number to predict "
        "(regression).")
    state.stop()

style = state.style()
first, second, third = st.columns(3, gap="medium")
spec = nb.controls(dataset, first, second)
dataset = data_controls.fit_rows(dataset, "nb_all_rows", first)
problem = nb.variant_problem(spec.variant, dataset)
if problem:
    st.error(problem)
    state.stop()
try:
    fitted = nb.fit(dataset, spec)
except (ValueError, DataError) as error:
    st.error(f"**This model cannot be fitted here.** {error} Try another variant or α > 0.")
    state.stop()
model, views = fitted.model, nf.feature_views(fitted.model)
with third:
    row = nb.row_picker(dataset, fitted)
if spec.variant == "categorical" and nb.numeric_columns(dataset):
    st.caption("Categorical on numbers: every distinct value is its own category, so a value "
               "not seen in training gets the zero-count θ. Auto with binned columns groups them.")
results.show_number(results.score(dataset, fitted.y_pred,
                                  accuracy_help="Share of {rows} ({n:,}) whose MAP class is right."),
                    third)

texts, numeric = nb.text_columns(dataset), nb.numeric_columns(dataset)
names = ["Priors & likelihoods", "Evidence for one row", "Accuracy"]
# the Text tab opens first only when every feature is text; otherwise it comes after
only_text = set(texts) == set(dataset.features)
names = (["Text"] if only_text else []) + names + (["Text"] if texts and not only_text else [])
names += ["Decision regions"] if len(numeric) >= 2 else []
tabs = dict(zip(names, st.tabs(names), strict=True))
x_row = dataset.X_test.iloc[[row]]

with tabs["Priors & likelihoods"]:
    priors, likelihoods = st.columns([2, 3], gap="medium")
    priors.plotly_chart(nf.priors_figure(model, style), width="stretch")
    with likelihoods:
        shown = [n for n, v in views.items() if v != "text"]
        if not shown:
            st.info("The only feature is text: see the **Text** tab for what each word contributes.")
        elif views[shown[0]] == "counts":
            st.markdown("**θⱼ꜀ per feature**: count in class c, and the smoothed probability.")
            tables.show(nf.likelihood_frame(model.likelihood_table()),
                        style=nf.style_zero_probabilities)
        else:
            feature = st.selectbox("Feature", shown, key="nb_feature")
            if views[feature] == "gaussian":
                params = model.gaussian_params(feature)
                value = float(x_row[feature].iloc[0])
                st.plotly_chart(nf.gaussian_curves_figure(params, feature, value, style), width="stretch")
                tables.show(params, width="content")
            else:
                tables.show(nf.likelihood_frame(model.likelihood_table(feature)),
                            style=nf.style_zero_probabilities)
                st.caption("θ = (count + α) / (N_c + α k), with k the number of values. Red: θ = 0, "
                           "a count of zero without smoothing: one such value rules the class out.")

with tabs["Evidence for one row"]:
    typed = st.toggle("Type a row of my own", key="nb_typed",
                      help="Start from the chosen test row and change any value.")
    if typed:
        x_row = nb.typed_row(dataset, x_row)
    try:
        ledger = model.evidence_ledger(x_row, 0)
    except ValueError as error:  # a typed value the model refuses, e.g. 1e200
        st.error(f"**This row cannot be explained.** {literal(error)}")
    else:
        posterior = ledger.loc[("total", "posterior")]
        predicted = posterior.idxmax()
        truth = "" if typed else f", true **{dataset.y_test.iloc[row]}**"
        if not typed:
            tables.show(x_row, hide_index=True)
        contrib, log_prior = model.log_likelihood_contributions(x_row)
        names = [str(n) for n in model.feature_names_in_]
        asked = nb.ask_evidence(model, posterior, contrib[0], log_prior, names,
                                questions.question_key("nb", dataset.content_hash, spec,
                                                       x_row.to_json()),
                                "your row" if typed else f"row {x_row.index[0]}")
        if asked:  # the evidence waits for the student's predictions
            st.markdown(f"{'Your row' if typed else f'Row **{x_row.index[0]}**'}: predicted "
                        f"**{predicted}** (P = {posterior.max():.3f}){truth}.")
            st.plotly_chart(nf.ledger_figure(nf.ledger_steps(ledger), style), width="stretch")
            shown_values = [f"{x_row[n].iloc[0]}" if n in x_row else "" for n in names]
            st.plotly_chart(ef.nomogram_figure(contrib[0], log_prior, names, model.classes_, style,
                                               values=shown_values), width="stretch")
            st.caption("The same sum as points: each feature's log-likelihood ratio for the class "
                       "against the others, with the prior's, adds up to the posterior log odds, "
                       "read below as P(c | x).")
            st.latex(r"P(c \mid x) = \frac{P(c) \prod_j P(x_j \mid c)}{\sum_r P(c_r) \prod_j P(x_j \mid c_r)}")
            for line in nf.posterior_latex(ledger):
                st.latex(line)
            if (ledger.xs("feature", level="part") == float("-inf")).any().any():
                st.caption("−∞: this value never occurs with that class in training and α = 0, so "
                           "θ = 0 and the whole product is 0. Move α above 0 to smooth it.")

with tabs["Accuracy"]:
    results.confusion(dataset, fitted.y_pred, model.classes_, style)

if texts:
    with tabs["Text"]:
        column = st.selectbox("Text column", texts, key="nb_text_column") if len(texts) > 1 else texts[0]
        text = url.bound(st.text_input, "Type a sentence and press Enter",
                         nb.first_sentence(dataset, column, row), key="nb_text")
        vocabulary, multinomial, bernoulli = nb.text_models(dataset, column, spec.alpha)
        counts = vocabulary.transform([text])
        tables = {"Multinomial": nf.word_table(vocabulary, multinomial.feature_log_prob_,
                                               multinomial.classes_, text),
                  "Bernoulli": nf.bernoulli_word_table(vocabulary, bernoulli, text)}
        if nb.ask_words(tables["Multinomial"], dataset, column, spec, text):  # words wait for it
            for (name, table), model_, part in zip(tables.items(), (multinomial, bernoulli),
                                                   st.columns(2), strict=True):
                proba = model_.predict_proba(counts)[0]
                part.markdown(f"**{name}** predicts **{model_.classes_[proba.argmax()]}** "
                              f"(P = {proba.max():.3f})")
                part.plotly_chart(nf.word_figure(table, f"{name}: what each word adds", style),
                                  width="stretch", key=f"nb_words_{name}")
            st.caption("Multinomial: each occurrence multiplies by θ_wc. Bernoulli: each vocabulary "
                       "word present multiplies by θ_wc, each absent one by 1 − θ_wc. Words never "
                       "seen in training are skipped.")

if len(numeric) >= 2:
    with tabs["Decision regions"]:
        x_name, y_name = axis_pair(dataset, numeric, ("nb_x", "nb_y"))
        try:
            pair = nb.fit(dataset, spec, [x_name, y_name])
        except (ValueError, DataError) as error:
            st.error(f"**These two columns cannot be fitted.** {error}")
        else:
            grid = nf.decision_grid(pair.model, dataset.X_train[[x_name, y_name]])
            points = data_controls.two_feature_points(dataset, [x_name, y_name], test=False)
            st.plotly_chart(nf.decision_boundary_figure(grid, points.train, points.y_train,
                                                        pair.model.classes_, style), width="stretch")
            st.caption(f"Fitted on these two columns only (test accuracy {pair.accuracy:.1%}); "
                       f"the colour is the MAP class, the dots the training rows. {points.sampled} "
                       f"{points.beyond(grid['x'], grid['y'])}")

take_home(model, dataset, list(dataset.features), "nb")
