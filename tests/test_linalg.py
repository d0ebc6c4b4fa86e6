"""torch.linalg and tf.linalg behaviours the op_db replay does not cover: refusals of singular
and indefinite matrices (type and words), the triangle a kernel reads, keyword forms, the
spectral norms, and TF's gradients.  Expected values recorded from torch 2.13 / TF 2.21."""
from __future__ import annotations

import numpy as np
import pytest

import dyngraph as torch
import staticgraph as tf

A = np.array([[4., 1., 2.], [0.5, 3., 1.], [-1., 2., 5.]])   # not symmetric


def test_singular_inverse_raises_torchs_linalg_error_naming_the_batch_element():
    batch = torch.tensor(np.stack([np.eye(2), [[1., 2.], [2., 4.]]]))
    with pytest.raises(torch.linalg.LinAlgError) as info:
        torch.linalg.inv(batch)
    assert isinstance(info.value, RuntimeError) and type(info.value).__name__ == "_LinAlgError"
    assert str(info.value).startswith(
        "linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not "
        "be completed because the input matrix is singular.")
    inverse, code = torch.linalg.inv_ex(batch)
    assert code.tolist() == [0, 2] and code.dtype == torch.int32


def test_singular_solve_and_indefinite_cholesky_use_torchs_words():
    with pytest.raises(torch.linalg.LinAlgError, match=r"^torch\.linalg\.solve: The solver "
                       r"failed because the input matrix is singular\."):
        torch.linalg.solve(torch.tensor([[1., 2.], [2., 4.]]), torch.ones(2))
    with pytest.raises(RuntimeError) as info:
        torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]]))
    assert str(info.value).startswith(
        "linalg.cholesky: The factorization could not be completed because the input is not "
        "positive-definite (the leading minor of order 2 is not positive-definite).")
    assert torch.linalg.cholesky_ex(torch.tensor([[1., 2.], [2., 1.]])).info.item() == 2


def test_shape_refusals_in_torchs_words():
    with pytest.raises(RuntimeError, match="linalg.inv: A must be batches of square matrices, "
                                           "but they are 2 by 3 matrices"):
        torch.linalg.inv(torch.ones(2, 3))
    with pytest.raises(RuntimeError, match="linalg.det: The input tensor A must have at least "
                                           "2 dimensions."):
        torch.linalg.det(torch.ones(3))
    with pytest.raises(RuntimeError, match=r"linalg.solve: Incompatible shapes of A and B for "
                                           r"the equation AX = B \(2x2 and 3x1\)"):
        torch.linalg.solve(torch.eye(2), torch.ones(3))


def test_cholesky_and_eigvalsh_read_one_triangle_as_torch():
    x = torch.tensor(A)
    np.testing.assert_allclose(torch.linalg.cholesky(x).numpy(), [
        [2.0, 0.0, 0.0], [0.25, 1.713913650100261, 0.0],
        [-0.5, 1.2398524277321037, 1.7924190239580724]], rtol=1e-12)
    np.testing.assert_allclose(torch.linalg.cholesky(x, upper=True).numpy(), [
        [2.0, 0.5, 1.0], [0.0, 1.6583123951777, 0.30151134457776363],
        [0.0, 0.0, 1.9771421064483223]], rtol=1e-12)
    np.testing.assert_allclose(torch.linalg.eigvalsh(x).numpy(),
                               [1.4054333647131585, 4.201305224207133, 6.393261411079709])
    np.testing.assert_allclose(torch.linalg.eigvalsh(x, UPLO="U").numpy(),
                               [2.307978528369904, 2.6431041321077897, 7.048917339522305])


def test_pinv_hermitian_of_a_nonsymmetric_input_takes_torchs_gradient():
    x = torch.tensor(A, requires_grad=True)
    p = torch.linalg.pinv(x, hermitian=True)
    (p * torch.arange(9.).reshape(3, 3).double()).sum().backward()
    np.testing.assert_allclose(p.detach().numpy()[0], [0.29139072847682135, -0.11920529801324498,
                                                       0.10596026490066222], rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), [
        [-0.3271542348409841, 0.06173889782340711, -0.5663287104579766],
        [0.010003046804906025, -0.06503548845162165, 0.04506947673667083],
        [-0.349370641638525, -0.22398314701545324, -0.42348613151915343]], rtol=1e-9)


def test_spectral_matrix_norms_and_their_gradient():
    x = torch.tensor(A, requires_grad=True)
    n = (torch.linalg.matrix_norm(x, "nuc") + torch.linalg.matrix_norm(x, 2)
         - torch.linalg.matrix_norm(x, -2))
    n.backward()
    assert n.item() == pytest.approx(16.696001296493844, rel=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [
        [1.0180302281113294, 0.46915853270677255, 0.600080652647245],
        [0.21002500508749827, 0.396461115903906, 0.6400051142846641],
        [-0.19318140528636424, 0.8131222559779467, 1.4401467328529751]], rtol=1e-9)


def test_solve_vector_and_right_hand_forms():
    x = torch.tensor(A)
    np.testing.assert_allclose(torch.linalg.solve(x, torch.tensor([1., 2., 3.]).double()).numpy(),
                               [-0.07079646017699115, 0.5575221238938053, 0.36283185840707965])
    np.testing.assert_allclose(torch.linalg.solve(x, torch.eye(3).double()[:2], left=False).numpy(),
                               [[0.23008849557522124, -0.017699115044247787, -0.08849557522123894],
                                [-0.061946902654867256, 0.3893805309734513, -0.05309734513274336]])


def test_tf_linalg_op_types_gradients_and_refusal():
    a = tf.constant(np.array([[4., 1.], [1., 3.]]))
    i, c = tf.linalg.inv(a), tf.linalg.cholesky(a)
    s, _, _ = tf.linalg.svd(a)
    q, _ = tf.linalg.qr(a)
    assert [t.op.type for t in (i, c, s, q, tf.linalg.slogdet(a)[0], tf.linalg.det(a))] == [
        "MatrixInverse", "Cholesky", "Svd", "Qr", "LogMatrixDeterminant", "MatrixDeterminant"]
    g, = tf.gradients(tf.reduce_sum(i) + tf.reduce_sum(c) + tf.reduce_sum(s) + tf.linalg.det(a), a)
    bad = tf.linalg.inv(tf.constant([[1., 2.], [2., 4.]]))
    with tf.compat.v1.Session() as sess:
        np.testing.assert_allclose(sess.run(g), [[4.17328661, -0.87496461],
                                                 [-0.87496461, 5.22713118]], rtol=1e-8)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Input is not invertible."):
            sess.run(bad)


W = np.arange(9.).reshape(3, 3)
S = A @ A.T + np.eye(3)   # symmetric positive-definite


def test_lu_factor_values_pivots_gradient_and_refusal():
    x = torch.tensor(A, requires_grad=True)
    LU, piv = torch.linalg.lu_factor(x)
    (LU * torch.tensor(W)).sum().backward()
    np.testing.assert_allclose(LU.detach().numpy(), [[4.0, 1.0, 2.0], [0.125, 2.875, 0.75],
                                                     [-0.25, 0.782608695652174, 4.913043478260869]])
    assert piv.tolist() == [1, 2, 3] and piv.dtype == torch.int32
    np.testing.assert_allclose(x.grad.numpy(), [
        [-0.7028000945179584, 0.6209829867674859, 4.157608695652174],
        [0.448487712665407, 3.727788279773157, -1.2608695652173925],
        [-2.5869565217391304, 0.34782608695652173, 8.0]], rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError) as info:
        torch.linalg.lu_factor(torch.tensor([[1., 2.], [2., 4.]]))
    assert str(info.value) == (
        "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a "
        "division by zero. If you still want to perform the factorization, consider calling "
        "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


def test_cholesky_solve_gradient_treats_the_factor_as_full_as_torch():
    L = torch.linalg.cholesky(torch.tensor(S)).detach().requires_grad_()
    X = torch.cholesky_solve(torch.tensor([[1.], [2.], [3.]]).double(), L)
    X.sum().backward()
    np.testing.assert_allclose(X.detach().numpy().ravel(), [-0.018403441682600382,
                                                            0.13814531548757172,
                                                            0.0547323135755258])
    np.testing.assert_allclose(L.grad.numpy(), [
        [-0.0006114743298918071, -0.007732580128465751, -0.005203765002350529],
        [-0.0452491004119938, -0.07284104947956047, -0.019678949234773428],
        [-0.012025661821205555, -0.013360220296797232, -0.0008408058964588145]], rtol=1e-9)


def test_matrix_exp_and_its_gradient():
    x = torch.tensor(A, requires_grad=True)
    E = torch.linalg.matrix_exp(x * 0.3)
    (E * torch.tensor(W)).sum().backward()
    np.testing.assert_allclose(E.detach().numpy()[0], [3.0710737239080186, 1.4698784591173673,
                                                       2.486780419820859], rtol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), [
        [-0.16242225128886548, 0.2910881554919906, 1.4252163481453648],
        [7.531414632712211, 6.528967102887256, 9.112931737675206],
        [12.323149334118986, 10.275876408449104, 13.783629495689096]], rtol=1e-9)


def test_tensordot_broadcasts_a_contracted_dim_of_size_one():
    out = torch.tensordot(torch.ones(1, 1, 1).double(), torch.arange(4.).reshape(2, 1, 2).double(),
                          dims=([0, 1], [2, 0]))
    assert out.tolist() == [[6.0]]


def test_geqrf_householder_product_and_ldl_factor():
    a, tau = torch.geqrf(torch.tensor(A))
    np.testing.assert_allclose(torch.linalg.householder_product(a, tau).numpy(), [
        [-0.9630868246861535, -0.05168138445041823, 0.26418327467353053],
        [-0.1203858530857692, -0.7950982223141265, -0.5944123680154437],
        [0.2407717061715384, -0.6042746489587362, 0.7595269146864004]], rtol=1e-10)
    LD, pivots = torch.linalg.ldl_factor(torch.tensor(S))
    np.testing.assert_allclose(LD.numpy(), [[22.0, 0.0, 0.0],
                                            [0.3181818181818182, 9.022727272727273, 0.0],
                                            [0.36363636363636365, 0.8816120906801007,
                                             21.07808564231738]], rtol=1e-12)
    assert pivots.tolist() == [1, 2, 3]
    np.testing.assert_allclose(torch.linalg.ldl_solve(LD, pivots, torch.tensor(S)).numpy(),
                               np.eye(3), atol=1e-12)


def test_vector_norm_below_one_has_a_zero_gradient_at_zero_as_torch():
    for p in (0.5, -0.5):
        x = torch.zeros(3, dtype=torch.float64, requires_grad=True)
        torch.linalg.vector_norm(x, p).backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]


def test_tf_linalg_compositions_match_tf_values_and_gradients():
    a = tf.constant(np.array([[4., 1.], [1., 3.]]))
    w = tf.constant(np.arange(6.).reshape(3, 2) + np.eye(3, 2))
    ls = tf.linalg.lstsq(w, tf.ones((3, 1), tf.float64), l2_regularizer=0.1)
    e = tf.linalg.expm(a)
    loss = (tf.reduce_sum(tf.linalg.pinv(a)) + tf.reduce_sum(tf.linalg.lstsq(a, a[:, :1]))
            + tf.reduce_sum(ls) + tf.reduce_sum(e))
    g = tf.gradients(loss, [a, w])
    assert tf.compat.v1.matrix_inverse is tf.linalg.inv and tf.linalg.diag(a[0]).op.type == "MatrixDiagV3"
    with tf.compat.v1.Session() as sess:
        got_ls, got_e, ga, gw = sess.run([ls, e] + g)
    np.testing.assert_allclose(got_ls.ravel(), [0.09934474741069467, 0.16909744240118418])
    np.testing.assert_allclose(got_e.ravel(), [76.28980484865923, 40.4587536380933,
                                               40.458753638093285, 35.831051210565874])
    np.testing.assert_allclose(gw.ravel(), [0.19164689551741265, -0.14074431200533358,
                                            0.045929470979401865, -0.0015588167843417766,
                                            -0.09433723278790818, -0.005553033480248354], rtol=1e-7)
    assert ga.shape == (2, 2)
