"""Parameter paths (modeling/parameters.py): what sweeps, batch runs and submodels change."""
import numpy as np
import pytest

import mechsim as ms

from distributed_helpers import pendulum


def test_with_parameters_sets_each_kind_of_path_and_leaves_the_model_alone():
    m = pendulum()
    new = m.with_parameters({"bodies.bob.mass": 2.0, "joints.j1.q0": 0.3, "bodies.bob.com[0]": 0.7,
                             "gravity[0]": 3.0, "inputs.u": 1.5})
    assert new.bodies["bob"].mass == 2.0 and np.allclose(new.joints["j1"].q0, [0.3])
    assert np.allclose(new.bodies["bob"].com, [0.7, 0, 0]) and np.allclose(new.gravity, [3, 0, 0])
    assert new.inputs == {"u": 1.5} and set(new.events) == {"half"}
    assert m.bodies["bob"].mass == 1.0 and np.allclose(m.gravity, [9.81, 0, 0]) and m.inputs == {"u": 0.0}


def test_with_parameters_equals_setting_the_element():
    a = pendulum().with_parameters({"bodies.bob.com": [0.8, 0, 0], "joints.j1.v0": [1.0]})
    b = pendulum()
    b.bodies["bob"].com, b.joints["j1"].v0 = (0.8, 0, 0), [1.0]
    assert np.array_equal(ms.forward_dynamics(a, [0.2], [0.3]), ms.forward_dynamics(b, [0.2], [0.3]))
    assert a.to_dict() == b.to_dict()


@pytest.mark.parametrize("path, message", [
    ("bodies.bbo.mass", "no body 'bbo' (did you mean 'bob'?)"),
    ("bodies.bob.mas", "has no parameter 'mas' (did you mean 'mass'?)"),
    ("joints.j1.parent", "'parent' sets the model's structure"),
    ("joint.j1.q0", "did you mean 'joints'?"),
    ("inputs.v", "no input 'v'"),
    ("bodies.bob.com[3]", "index 3 is beyond its 3 entries"),
    ("bodies.ground.mass", "the parameters of body 'ground' are none"),
])
def test_a_bad_path_is_named_with_what_exists(path, message):
    with pytest.raises(ms.ModelError, match="parameter '" + path.replace("[", r"\[").replace("]", r"\]")) as info:
        pendulum().with_parameters({path: 1.0})
    assert message in str(info.value)


def test_a_refused_value_names_the_parameter():
    with pytest.raises(ms.ModelError, match=r"parameters bodies.bob.mass = -1: body 'bob': mass must be non-negative"):
        pendulum().with_parameters({"bodies.bob.mass": -1})
