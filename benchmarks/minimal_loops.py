"""Minimal training loops written as each framework's own tutorials and examples write them: the references
``benchmarks/idiomatic_loop.py`` measures fwbench's trainers against.

They are the tutorials' code, not fwbench's: their own ResNet-18 of the same shape
(``runners.workloads.resnet18.arch``),
the framework's default initialisation and layer defaults, SGD with momentum 0.9 and weight decay 5e-4 as the
framework spells it. Each builder takes (images, labels) as NumPy (steps, batch, H, W, C), the mode, the precision
policy and, where the framework lets it choose, the device, and returns (step(i) running the i-th batch, sync).
Where they compute something else than fwbench, and what that costs:

- **Padding at stride 2.** Keras' and Flax's ``"SAME"`` pads (0, 1) at stride 2 where fwbench (PyTorch's rule)
  pads (1, 1) (``runners.workloads.resnet18.recipe.conv_padding``): same shapes and FLOPs.
- **Weight decay.** Keras' ``SGD(weight_decay=…)`` is decoupled; fwbench writes PyTorch's coupled rule out. Both are
  a few elementwise operations per parameter, fused by XLA.
- **BatchNorm.** Keras' and Flax's default momentum and epsilon where fwbench uses PyTorch's: constants only. The
  torchax loop, as torchax's ``train.make_train_step`` does, keeps no running statistics; fwbench's trainer does.
- **Bookkeeping.** fwbench's step also returns the count of correct predictions (an argmax over batch × 10 logits).
- **Precision and device.** Each uses true float32 (TF32 off) under ``fp32``, as fwbench's policy does. Under
  ``bf16`` the PyTorch loop runs its forward pass and loss under ``torch.autocast`` (PyTorch's AMP recipe), the Keras
  loop builds its model under the ``mixed_bfloat16`` policy with a float32 output (Keras' mixed precision guide).
  The JAX and torchax loops take their device and precision settings from fwbench's ``training_device``; under
  ``bf16`` the Flax loops build their layers as Flax's mixed precision does (``dtype=bfloat16``, float32
  parameters), and the torchax loop as JAX code does it: float32 master weights, a bfloat16 copy of weights and
  inputs for each forward pass.
"""

from __future__ import annotations

import functools

import numpy as np

from runners.workloads.resnet18 import arch

#: learning rate of every timed step (a constant: the rate's value costs nothing)
LR = 0.01
#: the tutorials' SGD: momentum and (coupled in PyTorch and optax, decoupled in Keras) weight decay
MOMENTUM, WEIGHT_DECAY = 0.9, 5e-4


def blocks() -> list[tuple[int, int, int]]:
    """(in width, out width, stride) of the eight BasicBlocks, from ``runners.workloads.resnet18.arch``."""
    out, cin = [], arch.STEM_WIDTH
    for width, stride in arch.STAGES:
        for b in range(arch.BLOCKS_PER_STAGE):
            out.append((cin, width, stride if b == 0 else 1))
            cin = width
    return out


def torch_resnet18():
    """The CIFAR ResNet-18 of kuangliu/pytorch-cifar, as ``torch.nn`` modules."""
    import torch.nn.functional as F
    from torch import nn

    def conv_bn(cin, cout, kernel, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, kernel // 2, bias=False), nn.BatchNorm2d(cout))

    class Block(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.body = nn.Sequential(conv_bn(cin, cout, 3, stride), nn.ReLU(), conv_bn(cout, cout, 3, 1))
            self.shortcut = conv_bn(cin, cout, 1, stride) if stride != 1 or cin != cout else nn.Identity()

        def forward(self, x):
            return F.relu(self.body(x) + self.shortcut(x))

    return nn.Sequential(
        conv_bn(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1),
        nn.ReLU(),
        *(Block(*b) for b in blocks()),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(arch.final_width(), arch.NUM_CLASSES),
    )


def minimal_torch(images, labels, mode, precision="fp32"):
    """PyTorch: the CIFAR ResNet-18 of kuangliu/pytorch-cifar, ``torch.optim.SGD``, ``torch.compile(model)``; under
    ``bf16`` the forward pass and the loss under ``torch.autocast``."""
    import torch
    import torch.nn.functional as F

    if precision == "fp32":  # true float32, as fwbench's policy
        torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    device = "cuda" if torch.cuda.is_available() else "cpu"

    model = torch_resnet18().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    forward = torch.compile(model) if mode == "compiled" else model
    xs = torch.from_numpy(images).permute(0, 1, 4, 2, 3).contiguous().to(device)
    ys = torch.from_numpy(labels).long().to(device)

    def step(i):
        optimizer.zero_grad()
        with torch.autocast(device, dtype=torch.bfloat16, enabled=precision == "bf16"):
            loss = F.cross_entropy(forward(xs[i]), ys[i])
        loss.backward()
        optimizer.step()
        return loss

    return step, (torch.cuda.synchronize if device == "cuda" else lambda: None)


def minimal_tensorflow(images, labels, mode, precision="fp32"):
    """Keras 3: a functional ResNet-18 with ``padding="same"``, ``keras.optimizers.SGD``, and the custom step of
    Keras' "training loop from scratch" guide under ``tf.function(jit_compile=True)``; under ``bf16`` the model built
    under the ``mixed_bfloat16`` policy, its output float32, as Keras' mixed precision guide builds it."""
    import keras
    import tensorflow as tf
    from keras import layers

    if precision == "fp32":  # true float32, as fwbench's policy
        tf.config.experimental.enable_tensor_float_32_execution(False)
    keras.mixed_precision.set_global_policy("mixed_bfloat16" if precision == "bf16" else "float32")

    def conv_bn(x, width, kernel, stride):
        x = layers.Conv2D(width, kernel, strides=stride, padding="same", use_bias=False)(x)
        return layers.BatchNormalization()(x)

    inputs = keras.Input(images.shape[2:])
    x = layers.ReLU()(conv_bn(inputs, arch.STEM_WIDTH, 3, 1))
    for cin, cout, stride in blocks():
        y = conv_bn(layers.ReLU()(conv_bn(x, cout, 3, stride)), cout, 3, 1)
        x = layers.ReLU()(layers.add([y, conv_bn(x, cout, 1, stride) if stride != 1 or cin != cout else x]))
    logits = layers.Dense(arch.NUM_CLASSES)(layers.GlobalAveragePooling2D()(x))
    model = keras.Model(inputs, layers.Activation("linear", dtype="float32")(logits))  # the guide's float32 output
    keras.mixed_precision.set_global_policy("float32")  # the layers keep the policy they were built under
    optimizer = keras.optimizers.SGD(LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function(jit_compile=mode == "compiled")
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    xs, ys = tf.constant(images), tf.constant(labels)
    batches = [(xs[i], ys[i]) for i in range(len(images))]
    return (lambda i: train_step(*batches[i])), lambda: model.trainable_variables[-1].numpy()


def minimal_jax(images, labels, mode, precision="fp32", device="auto"):
    """Flax NNX: a ResNet-18 of ``nnx.Conv`` (default ``"SAME"``), ``nnx.Optimizer`` over optax's SGD, and the step
    of Flax's performance guide: ``nnx.split`` once, one ``jax.jit`` of a pure function of the state, donated."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    target = training_device(device, precision)  # fp32: matmul precision "highest"
    dtype = jnp.bfloat16 if precision == "bf16" else None  # Flax's mixed precision: float32 parameters

    class ConvBN(nnx.Module):
        def __init__(self, cin, cout, kernel, stride, rngs):
            self.conv = nnx.Conv(cin, cout, (kernel, kernel), strides=stride, use_bias=False, dtype=dtype, rngs=rngs)
            self.bn = nnx.BatchNorm(cout, dtype=dtype, rngs=rngs)

        def __call__(self, x):
            return self.bn(self.conv(x))

    class Block(nnx.Module):
        def __init__(self, cin, cout, stride, rngs):
            self.conv1, self.conv2 = ConvBN(cin, cout, 3, stride, rngs), ConvBN(cout, cout, 3, 1, rngs)
            self.shortcut = ConvBN(cin, cout, 1, stride, rngs) if stride != 1 or cin != cout else None

        def __call__(self, x):
            y = self.conv2(nnx.relu(self.conv1(x)))
            return nnx.relu(y + (x if self.shortcut is None else self.shortcut(x)))

    class ResNet18(nnx.Module):
        def __init__(self, rngs):
            self.stem = ConvBN(arch.IMAGE_CHANNELS, arch.STEM_WIDTH, 3, 1, rngs)
            self.blocks = nnx.List([Block(*b, rngs) for b in blocks()])
            self.fc = nnx.Linear(arch.final_width(), arch.NUM_CLASSES, dtype=dtype, rngs=rngs)

        def __call__(self, x):
            x = nnx.relu(self.stem(x))
            for block in self.blocks:
                x = block(x)
            return self.fc(x.mean(axis=(1, 2)))

    with jax.default_device(target):
        model = ResNet18(nnx.Rngs(0))
        tx = optax.chain(optax.add_decayed_weights(WEIGHT_DECAY), optax.sgd(LR, momentum=MOMENTUM))
        optimizer = nnx.Optimizer(model, tx, wrt=nnx.Param)
    graphdef, state = nnx.split((model, optimizer))

    return device_loop(nnx_train_step(graphdef), state, images, labels, target)


def minimal_linen(images, labels, mode, precision="fp32", device="auto"):
    """Flax linen, as Flax's ImageNet example writes it: ``nn.Conv`` and ``nn.BatchNorm`` with ``dtype``, the batch
    statistics as a mutable collection, a ``TrainState`` over optax's SGD, one ``jax.jit`` of the step, donated."""
    import flax.linen as nn
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state

    target = training_device(device, precision)
    dtype = jnp.bfloat16 if precision == "bf16" else jnp.float32

    class ConvBN(nn.Module):
        width: int
        kernel: int
        stride: int

        @nn.compact
        def __call__(self, x):
            k = (self.kernel, self.kernel)
            x = nn.Conv(self.width, k, self.stride, use_bias=False, dtype=dtype)(x)
            return nn.BatchNorm(use_running_average=False, momentum=0.9, epsilon=1e-5, dtype=dtype)(x)

    class ResNet18(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.relu(ConvBN(arch.STEM_WIDTH, 3, 1)(x))
            for cin, cout, stride in blocks():
                y = ConvBN(cout, 3, 1)(nn.relu(ConvBN(cout, 3, stride)(x)))
                x = nn.relu(y + (ConvBN(cout, 1, stride)(x) if stride != 1 or cin != cout else x))
            return nn.Dense(arch.NUM_CLASSES, dtype=dtype)(jnp.mean(x, axis=(1, 2)))

    class TrainState(train_state.TrainState):
        batch_stats: dict

    model = ResNet18()
    with jax.default_device(target):
        variables = model.init(jax.random.key(0), jnp.zeros((1, *images.shape[2:]), jnp.float32))
        tx = optax.chain(optax.add_decayed_weights(WEIGHT_DECAY), optax.sgd(LR, momentum=MOMENTUM))
        state = TrainState.create(
            apply_fn=model.apply, params=variables["params"], batch_stats=variables["batch_stats"], tx=tx
        )

    @functools.partial(jax.jit, donate_argnums=0)
    def train_step(state, x, y):
        def loss_fn(params):
            logits, updates = state.apply_fn(
                {"params": params, "batch_stats": state.batch_stats}, x, mutable=["batch_stats"]
            )
            loss = optax.softmax_cross_entropy_with_integer_labels(logits.astype(jnp.float32), y).mean()
            return loss, updates

        (loss, updates), grads = jax.value_and_grad(loss_fn, has_aux=True)(state.params)
        return loss, state.apply_gradients(grads=grads).replace(batch_stats=updates["batch_stats"])

    return device_loop(train_step, state, images, labels, target)


def minimal_torchax(images, labels, mode, precision="fp32", device="auto"):
    """PyTorch via torchax, as torchax's README trains a module: a torch ResNet-18 (``torch_resnet18``), its weights
    and buffers as JAX arrays, torchax's ``train.make_train_step`` over optax's SGD, one ``jax.jit`` with the state
    donated; under ``bf16`` the forward pass runs on bfloat16 copies of the float32 weights and of the inputs."""
    import jax
    import jax.numpy as jnp
    import optax
    import torch
    import torch.nn.functional as F

    from runners.frameworks.torchax.shim import torchax_environment

    target = training_device(device, precision)
    env = torchax_environment()  # imports torchax, through the shim where this PyTorch lacks an operator it names
    from torchax.interop import JittableModule

    compute = jnp.bfloat16 if precision == "bf16" else jnp.float32
    module = JittableModule(torch_resnet18())
    weights = {k: jax.device_put(v.detach().numpy(), target) for k, v in module.params.items()}
    buffers = {k: jax.device_put(v.detach().numpy(), target) for k, v in module.buffers.items()}

    def model_fn(weights, buffers, x):
        low = {k: w.to(torch.bfloat16) for k, w in weights.items()} if compute == jnp.bfloat16 else weights
        return module.functional_call("forward", low, buffers, x.to(low[next(iter(low))].dtype))

    def loss_fn(logits, y):
        return F.cross_entropy(logits.float(), y)

    tx = optax.chain(optax.add_decayed_weights(WEIGHT_DECAY), optax.sgd(LR, momentum=MOMENTUM))
    nchw = images.transpose(0, 1, 4, 2, 3)
    return torchax_loop(env, (weights, buffers), model_fn, loss_fn, tx, (nchw, labels), target)


def training_device(device: str, precision: str):
    """The JAX device and process-wide precision settings of fwbench's trainers (``jax.resnet18.training_device``)."""
    from runners.frameworks.jax.resnet18 import training_device as trainers_device

    return trainers_device(device, precision, np.dtype("float32"))


def device_loop(train_step, state, images, labels, target):
    """(step, sync) of a jitted ``train_step(state, x, y) -> (loss, state)`` over batches resident on ``target``."""
    import jax

    batches = [(jax.device_put(x, target), jax.device_put(y, target)) for x, y in zip(images, labels, strict=True)]
    holder = [jax.device_put(state, target)]

    def step(i):
        loss, holder[0] = train_step(holder[0], *batches[i])
        return loss

    return step, lambda: jax.block_until_ready(holder[0])


def nnx_train_step(graphdef):
    """The step of Flax's performance guide over the ``nnx.split`` of (model, optimizer) into ``graphdef`` and a
    state: one ``jax.jit`` of a pure function of the state, donated, the loss taken in float32."""
    import jax
    import jax.numpy as jnp
    import optax
    from flax import nnx

    @functools.partial(jax.jit, donate_argnums=0)
    def train_step(state, x, y):
        model, optimizer = nnx.merge(graphdef, state)

        def loss_fn(model):
            logits = model(x).astype(jnp.float32)  # the loss in float32
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        loss, grads = nnx.value_and_grad(loss_fn)(model)
        optimizer.update(model, grads)
        return loss, nnx.state((model, optimizer))

    return train_step


def torchax_loop(env, weights_and_buffers, model_fn, loss_fn, tx, batches, target):
    """(step, sync) of torchax's ``train.make_train_step(model_fn, loss_fn, tx)`` as its README trains a module: one
    ``jax.jit`` with the weights and optimizer state donated, over the (inputs, targets) ``batches`` (NumPy, steps
    first) resident on ``target``, each step inside torchax's environment ``env``."""
    import jax
    from torchax import interop, train

    weights, buffers = weights_and_buffers
    step_fn = interop.jax_jit(train.make_train_step(model_fn, loss_fn, tx), {"donate_argnums": (0, 2)})
    on_device = [(jax.device_put(x, target), jax.device_put(y, target)) for x, y in zip(*batches, strict=True)]
    state, buffers, on_device = env.j2t_iso(([weights, tx.init(weights)], buffers, on_device))

    def step(i):
        with env:
            loss, state[0], state[1] = step_fn(state[0], buffers, state[1], *on_device[i])
        return loss

    return step, lambda: jax.block_until_ready(env.t2j_iso(state))
