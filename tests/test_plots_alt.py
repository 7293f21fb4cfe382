"""Text alternatives of the book's figures: every figure function of seqrmt.plots writes an
alt text from the data it plotted, and the display hook carries it to the page."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

import seqrmt as sr  # noqa: E402
import seqrmt.plots as srp  # noqa: E402
import seqrmt.validation as sv  # noqa: E402
from seqrmt.plots import _style  # noqa: E402

OWN_MODULES = ("bulk", "spikes", "weights", "model", "attention", "experiments", "validation")


@pytest.fixture(scope="module")
def fs_rows():
    return sv.load_finite_size()[0]


# Cheap calls of every figure function of the modules above (small d, few seeds).
CALLS = {
    "bulk_mp_figure": lambda fs: srp.bulk_mp_figure(2.0, d=60),
    "bulk_density_figure": lambda fs: srp.bulk_density_figure(2.0, 0.5),
    "bulk_inverse_map_figure": lambda fs: srp.bulk_inverse_map_figure(),
    "bulk_limits_figure": lambda fs: srp.bulk_limits_figure(deltas=(1.0, 0.1)),
    "bulk_simulation_figure": lambda fs: srp.bulk_simulation_figure(d=60),
    "bulk_kappa_figure": lambda fs: srp.bulk_kappa_figure(d=60),
    "bulk_token_count_figure": lambda fs: srp.bulk_token_count_figure(d=60),
    "bulk_fixed_T_figure": lambda fs: srp.bulk_fixed_T_figure(d=60, seeds=(0,)),
    "bulk_fixed_T_convergence_figure": lambda fs: srp.bulk_fixed_T_convergence_figure(Ts=(1, 4)),
    "spikes_spectrum": lambda fs: srp.spikes_spectrum(d=80),
    "spikes_centering": lambda fs: srp.spikes_centering(d=80),
    "spikes_vs_beta": lambda fs: srp.spikes_vs_beta(d=60, seeds=(0,), sim_betas=(1.0,)),
    "spikes_phase_diagram": lambda fs: srp.spikes_phase_diagram(n=20),
    "spikes_fixed_T": lambda fs: srp.spikes_fixed_T(Ts=(2,)),
    "spikes_fixed_T_limit": lambda fs: srp.spikes_fixed_T_limit(Ts=(2, 3)),
    "spikes_fixed_T_vs_T": lambda fs: srp.spikes_fixed_T_vs_T(Ts=(2, 4)),
    "weights_profiles": lambda fs: srp.weights_profiles(),
    "weights_markov_profile": lambda fs: srp.weights_markov_profile(),
    "weights_rayleigh": lambda fs: srp.weights_rayleigh(n_random=100),
    "weights_alignment": lambda fs: srp.weights_alignment(d=60, seeds=(0,), sim_betas=(1.0,)),
    "weights_negative": lambda fs: srp.weights_negative(),
    "model_table_figure": lambda fs: srp.model_table_figure(d=20, V=40),
    "model_signs_figure": lambda fs: srp.model_signs_figure(N=100),
    "model_sheppard_figure": lambda fs: srp.model_sheppard_figure(N=100, n_points=3),
    "model_pooled_figure": lambda fs: srp.model_pooled_figure(d=40, V=80, N=60),
    "model_decomposition_figure": lambda fs: srp.model_decomposition_figure(d=40, V=40, N=60),
    "attention_profiles": lambda fs: srp.attention_profiles(ds=(16,), n_show=3),
    "attention_convergence": lambda fs: srp.attention_convergence(ds=(16, 32), n_sequences=10),
    "attention_spectrum": lambda fs: srp.attention_spectrum(d=60),
    "attention_tau_profiles": lambda fs: srp.attention_tau_profiles(),
    "attention_snr_tau": lambda fs: srp.attention_snr_tau(n_tau=9),
    "attention_explorer": lambda fs: srp.attention_explorer(d=32, n_show=2),
    "experiments_spectra": lambda fs: srp.experiments_spectra(d=60),
    "experiments_alignment": lambda fs: srp.experiments_alignment(d=60, seeds=2, betas=(1.0, 2.0)),
    "experiments_classification": lambda fs: srp.experiments_classification(d=40, Ns=(20, 40), seeds=2, n_test=50),
    "validation_atlas": lambda fs: srp.validation_atlas(),
    "validation_ideal": lambda fs: srp.validation_ideal(),
    "validation_mean_spike": lambda fs: srp.validation_mean_spike(),
    "validation_scaling": lambda fs: srp.validation_scaling(rows=fs),
    "validation_bulk_T": lambda fs: srp.validation_bulk_T(rows=fs),
    "validation_spikes_T": lambda fs: srp.validation_spikes_T(rows=fs),
    "validation_bulk_histogram": lambda fs: srp.validation_bulk_histogram(T=2, d=40),
    "validation_transition": lambda fs: srp.validation_transition(d=40, seeds=1, n_beta=2),
}


def test_every_figure_function_is_covered():
    """Every public function of the modules above that returns a Figure is in CALLS."""
    names = set()
    for mod in OWN_MODULES:
        module = getattr(srp, mod)
        for name in module.__all__:
            f = getattr(module, name)
            if (
                inspect.isfunction(f)
                and not name.endswith(("_data", "_table"))
                and name
                not in (
                    "weights_correlation",
                    "weights_family",
                    "bulk_weights",
                    "bulk_kolmogorov",
                    "bulk_pooled_spectrum",
                    "attention_suffix_correlation",
                    "attention_weight_samples",
                    "experiments_weights",
                )
            ):
                names.add(name)
    assert names == set(CALLS)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_figure_has_its_own_alt_text(name, fs_rows):
    fig = CALLS[name](fs_rows)
    assert isinstance(fig, Figure)
    alt = getattr(fig, "seqrmt_alt", None)
    assert alt, f"{name} does not call set_alt"
    assert srp.alt_text(fig) == alt
    # a sentence with numbers, no TeX left, not a file name
    assert len(alt) >= 80 and re.search(r"\d", alt)
    assert "$" not in alt and "\\" not in alt and "_images" not in alt
    assert "nan" not in alt.lower().split()


# ---------------------------------------------------------------- key numbers
def test_spectrum_alt_gives_the_predicted_outlier_and_parameters():
    fig = srp.spikes_spectrum(beta=1.0, delta=0.5, gamma=0.25, weights="optimal", d=80)
    alt = srp.alt_text(fig)
    R = sr.prefix_correlation(16, 4)
    p = sr.predict(0.5, 0.25, sr.named_weights("optimal", R), R, 1.0)
    right = sr.bulk_edges(0.5, 0.25, p.kappa)[1]
    assert "β = 1" in alt and "δ = 0.5" in alt and "γ = 0.25" in alt and "optimal" in alt
    assert srp.fmt(p.sample_outlier) in alt and srp.fmt(right) in alt


def test_weights_alt_gives_the_rayleigh_quotients():
    alt = srp.alt_text(srp.weights_profiles(family="prefix", T=16, L=4))
    R = sr.prefix_correlation(16, 4)
    for name in ("mean", "causal", "optimal"):
        w = sr.named_weights(name, R)
        assert f"{name} {sr.alpha(w, R) / sr.kappa(w):.2f}" in alt
    assert f"{np.linalg.eigvalsh(R)[-1]:.2f}" in alt


def test_bulk_density_alt_gives_edges_and_atom():
    alt = srp.alt_text(srp.bulk_density_figure(delta=2.0, gamma=0.5))
    left, right = sr.bulk_edges(2.0, 0.5)
    assert srp.fmt(left) in alt and srp.fmt(right) in alt
    assert f"atom of mass {srp.fmt(sr.bulk_atom(2.0, 0.5))}" in alt
    # no atom when both ratios are below one
    assert "no atom" in srp.alt_text(srp.bulk_density_figure(delta=0.5, gamma=0.5))


def test_alt_changes_with_the_parameters():
    a = srp.alt_text(srp.bulk_density_figure(delta=0.5, gamma=0.5))
    b = srp.alt_text(srp.bulk_density_figure(delta=1.5, gamma=0.5))
    assert a != b and "δ = 0.5" in a and "δ = 1.5" in b


# ---------------------------------------------------------------- machinery
@pytest.mark.parametrize(
    "tex, text",
    [
        (r"$\lambda_{\max}/\kappa$", "λ max/κ"),
        (r"$\beta = \|\mu\|^2$", "β = ‖μ‖²"),
        (r"eigenvalue $\lambda$", "eigenvalue λ"),
        (r"$\alpha/\kappa = w^\top R w / w^\top w$", "α/κ = w^T R w / w^T w"),
    ],
)
def test_plain_text(tex, text):
    assert srp.plain_text(tex) == text


def test_set_alt_rejects_empty_text():
    fig, _ = srp.figure()
    with pytest.raises(ValueError, match="alt text"):
        srp.set_alt(fig, "  ")


def test_fallback_alt_describes_axes():
    fig, ax = srp.figure()
    ax.plot([0, 2], [1, 3], label="a line")
    srp.finish(ax, xlabel=r"$\beta$", ylabel="density", title="demo")
    alt = srp.alt_text(fig)
    assert "demo" in alt and "β from" in alt and "density" in alt and "a line" in alt


def test_display_hook_sends_alt_and_css_size():
    fig, ax = srp.figure(width=5.0, height=3.0)
    ax.plot([0, 1], [0, 1])
    srp.set_alt(fig, "A diagonal line from 0 to 1.")
    data, meta = _style._png(fig)
    assert data.startswith(b"\x89PNG")
    assert meta["alt"] == "A diagonal line from 0 to 1."
    from PIL import Image
    import io

    w, h = Image.open(io.BytesIO(data)).size
    # rendered at twice the CSS size (tight bounding box: close to 5 x 100 CSS px)
    assert (w, h) == pytest.approx((2 * meta["seqrmt_width"], 2 * meta["seqrmt_height"]), abs=2)
    assert 450 <= meta["seqrmt_width"] <= 520


def test_readable_fonts_on_a_phone_column():
    fig, ax = srp.figure(width=6.4, height=3.6)
    ax.plot([0, 1], [0, 1], label="x")
    srp.finish(ax, xlabel="x", ylabel="y", title="t")
    floor = srp.readable_fonts(fig)
    from matplotlib.text import Text

    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_text()]
    # smallest text in CSS px when the figure with its margins is scaled to the 358 px column
    scale = srp.COLUMN_PX / ((6.4 + 2 * _style.TIGHT_PAD_INCHES) * 72)
    assert min(sizes) * scale >= srp.MIN_TEXT_PX - 1e-9
    assert floor == pytest.approx(srp.MIN_TEXT_PX / scale)


def test_cropped_figure_shows_its_smallest_text_readably_on_a_phone():
    """The PNG the book shows (cropped to its content, with a margin) carries its smallest text
    size; scaled to the phone column that text is at least 9 CSS px, and the page's class says so."""
    from seqrmt_book.figures import figure_attributes, text_class

    fig = srp.bulk_inverse_map_figure()
    _, meta = _style._png(fig)
    assert meta["seqrmt_text_px"] == srp.smallest_text_px(fig)
    assert meta["seqrmt_text_px"] * srp.COLUMN_PX / meta["seqrmt_width"] >= srp.MIN_TEXT_PX
    from docutils import nodes

    (img,) = figure_attributes([nodes.image(uri="x.png")], meta)
    assert text_class(meta["seqrmt_text_px"], meta["seqrmt_width"]) in img["classes"]
    assert text_class(16, 640) == "seqrmt-textw-2500"  # 16 px on a 640 px figure: 2.5 % of its width
    assert text_class(None, 640) is None and text_class("?", 640) is None and text_class(0, 640) is None
    assert text_class(16, 0) is None and text_class(16, None) is None


def test_smallest_text_px_reads_the_drawn_text():
    fig, ax = srp.figure(width=4.0, height=3.0)
    assert srp.smallest_text_px(fig) is None or srp.smallest_text_px(fig) > 0
    ax.set_title("a title", fontsize=36)
    ax.tick_params(labelsize=7.2)
    import io

    fig.savefig(io.BytesIO(), format="png")  # a draw: the tick labels get their text
    # 7.2 pt tick labels at 100 CSS px per inch: 10 CSS px
    assert srp.smallest_text_px(fig) == pytest.approx(10.0)
    assert srp.smallest_text_px(fig, css_dpi=50) == pytest.approx(5.0)


def test_explorer_frame_carries_its_smallest_text():
    from seqrmt.widgets import _img_html, _render_frame

    frame = _render_frame(srp.bulk_inverse_map_figure(), 100)
    assert frame["text_px"] * srp.COLUMN_PX / frame["width"] >= srp.MIN_TEXT_PX
    assert f'data-seqrmt-text-px="{frame["text_px"]}"' in _img_html(frame)
