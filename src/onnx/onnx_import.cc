// Replaced by the ONNX import module.
