"""Behind the Known platform issues page (generator/data/platform_issues.json cites each as an issue's source and its
reproduce command): why JAX trains ResNet-18 slowly on a CPU (``xla_cpu_conv``) and why PyTorch's GPT step is slow on
an AMD CPU (``gpt_matmul_shapes``)."""
